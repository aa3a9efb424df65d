/**
 * The `SERVICE_TOKENS_FILE`, read at start and again on SIGHUP or when its text changes, so a
 * leaked token is revoked without a restart (which, on the memory store, would lose every task).
 * A new text that is not valid is refused with its reason logged, and the tokens in use stay.
 *
 * @example
 * ```ts ignore
 * const file = await loadTokensFile("tokens.json", { read: (p) => Deno.readTextFile(p), log: console.error });
 * createService(config, { store, tokens: file.tokens }); // always the tokens in use
 * file.watch(2_000);
 * Deno.addSignalListener("SIGHUP", () => file.reload("SIGHUP"));
 * ```
 *
 * @module
 */
import { createTokenSet, parseTokens, type TokenSet } from "./tokens.ts";

/** A tokens file and the tokens it gives now. */
export interface TokensFile {
  /** Answers with the tokens in use at each call. */
  readonly tokens: TokenSet;
  /** Reads the file again (`why` names the occasion in the log line); false when it was refused. */
  reload(why: string): Promise<boolean>;
  /** Reads the file every `everyMs` and reloads it when its text changed. */
  watch(everyMs: number): void;
  /** Stops watching. */
  close(): void;
}

/** What loading a tokens file needs. */
export interface TokensFileOptions {
  readonly read: (path: string) => Promise<string>;
  readonly log: (line: string) => void;
  /** Called with a reloaded set before it is used (the entry starts the runners of new tenants there). */
  readonly beforeUse?: (tokens: TokenSet) => void;
}

const tokensIn = (n: number) => `${n} token${n === 1 ? "" : "s"}`;

/**
 * Reads and parses `path`; throws, naming the file and every bad entry (never a token), when it
 * cannot be read or is not valid.
 */
export async function loadTokensFile(path: string, options: TokensFileOptions): Promise<TokensFile> {
  const read = () =>
    options.read(path).catch((error: Error) => {
      throw new Error(`SERVICE_TOKENS_FILE '${path}' cannot be read (${error.message}); point it at the tokens file`);
    });
  const first = await read();
  let current = { text: first, set: createTokenSet(parseTokens(first, path)) };
  /** The last text refused, so a watcher does not log the same refusal at every look. */
  let refused: string | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  let timer: ReturnType<typeof setInterval> | undefined;

  /** Reads the file again, one reload at a time; with `ifChanged`, only when its text is new. */
  const reload = (why: string, ifChanged = false): Promise<boolean> => {
    const done = queue.then(async () => {
      const was = current.set.size;
      let text: string | undefined;
      try {
        text = await read();
        if (ifChanged && (text === current.text || text === refused)) return false;
        const set = createTokenSet(parseTokens(text, path));
        options.beforeUse?.(set);
        current = { text, set };
        refused = undefined;
        options.log(`SERVICE_TOKENS_FILE '${path}' reloaded (${why}): ${tokensIn(set.size)} (was ${was})`);
        return true;
      } catch (error) {
        if (ifChanged && text === refused) return false;
        refused = text;
        options.log(
          `SERVICE_TOKENS_FILE '${path}' not reloaded (${why}): ${(error as Error).message}\n` +
            `  still using the ${tokensIn(was)} loaded before; fix the file, then send SIGHUP or save it again`,
        );
        return false;
      }
    });
    queue = done;
    return done;
  };

  return {
    tokens: {
      get size() {
        return current.set.size;
      },
      get tenants() {
        return current.set.tenants;
      },
      lookup: (token) => current.set.lookup(token),
    },
    reload: (why) => reload(why),
    watch(everyMs) {
      timer ??= setInterval(() => void reload("the file changed", true), everyMs);
    },
    close: () => clearInterval(timer),
  };
}
