/**
 * Runs `ctl` in-process: `run(argv, ctx)` with the emulator's fetch handlers as the network, a
 * temporary directory for files, captured output, and scripted terminal answers. A command
 * costs milliseconds, so every command's behaviour can be tested this way; a smaller set of
 * subprocess tests covers the real entry points.
 *
 * @module
 */
import { run } from "../cli/run.ts";
import type { CliContext } from "../cli/context.ts";
import type { GroupSpec } from "../cli/framework/spec.ts";

import type { Keyring } from "../lib/config/mod.ts";
import { fetchTransport, type TransportOptions } from "../lib/http/mod.ts";
import { type Capture, capture, type FileSystem } from "../lib/runtime/mod.ts";

export { type Capture, capture };
import { runtime } from "../lib/runtime/deno.ts";
import { createEmulator, DEFAULT_OPTIONS, type Emulator, type EmulatorOptions } from "../emulator/mod.ts";

export const CLOUD_URL = "http://cloud.test/v1";
export const ENTERPRISE_URL = "https://cluster.test:9443";

/** Credentials of the emulator, as environment variables. */
export const EMULATOR_ENV = {
  STORE_CLOUD_API_URL: CLOUD_URL,
  STORE_CLOUD_API_KEY: "demo-key",
  STORE_CLOUD_API_SECRET: "demo-secret",
  STORE_ENTERPRISE_URL: ENTERPRISE_URL,
  STORE_ENTERPRISE_USER: "admin@example.com",
  STORE_ENTERPRISE_PASSWORD: "demo-password",
};

/** What one in-process run saw. */
export interface CtlRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Requests the emulator received, as `METHOD path`. */
  readonly requests: readonly string[];
  /** Their `traceparent` headers, in the same order (undefined: none sent). */
  readonly traceparents: readonly (string | undefined)[];
  /** Transport options of each transport created. */
  readonly transports: readonly TransportOptions[];
}

export interface RunOptions {
  readonly env?: Record<string, string | undefined>;
  readonly stdin?: string | Uint8Array;
  readonly tty?: { readonly stdin?: boolean; readonly stdout?: boolean; readonly stderr?: boolean };
  readonly columns?: number;
  /** Answers to confirmation questions, in order. */
  readonly answers?: readonly boolean[];
  readonly keyring?: Record<string, string>;
  readonly interrupt?: AbortSignal;
  /** File-system calls to replace (e.g. a `freeSpace` that reports a full disk). */
  readonly fs?: Partial<FileSystem>;
  /** The command's clock (default `Date.now`). */
  readonly now?: () => number;
  /** What `--no-wait` starts in the background (e.g. the same harness, not awaited). */
  readonly launchDetached?: (args: readonly string[]) => Promise<number>;
}

/** An in-process ctl bound to one emulator and one temporary directory (the cwd and config home). */
export interface InProcessCtl {
  (argv: string[], options?: RunOptions): Promise<CtlRun>;
  readonly emulator: Emulator;
  readonly dir: string;
  /** The questions asked so far. */
  readonly questions: string[];
  [Symbol.asyncDispose](): Promise<void>;
}

/** Creates the harness; `await using ctl = await inProcessCtl()`. */
export async function inProcessCtl(
  options: Partial<EmulatorOptions> = {},
  /** Another command tree than ctl's, to test the framework with commands of its own. */
  root?: GroupSpec,
): Promise<InProcessCtl> {
  const emulator = createEmulator({ ...DEFAULT_OPTIONS, taskDelayMs: 0, debuginfoMb: 1, ...options });
  const dir = await Deno.makeTempDir({ prefix: "ctl-test-" });
  const questions: string[] = [];
  const ctl = async (argv: string[], o: RunOptions = {}): Promise<CtlRun> => {
    const stdout = capture(o.tty?.stdout, o.columns);
    const stderr = capture(o.tty?.stderr, o.columns);
    const requests: string[] = [];
    const traceparents: (string | undefined)[] = [];
    const transports: TransportOptions[] = [];
    const answers = [...(o.answers ?? [])];
    const stdinBytes = typeof o.stdin === "string" ? new TextEncoder().encode(o.stdin) : o.stdin ?? new Uint8Array();
    const keyring = fakeKeyring(o.keyring ?? {});
    const handler = (request: Request) => {
      const url = new URL(request.url);
      requests.push(`${request.method} ${url.pathname}${url.search}`);
      traceparents.push(request.headers.get("traceparent") ?? undefined);
      return url.origin === new URL(CLOUD_URL).origin
        ? emulator.cloud.fetch(request)
        : emulator.enterprise.fetch(request);
    };
    const ctx: CliContext = {
      env: { HOME: dir, STORE_CONFIG_FILE: `${dir}/config.toml`, ...o.env },
      cwd: dir,
      home: dir,
      stdin: {
        isTTY: o.tty?.stdin ?? false,
        readAll: () => Promise.resolve(stdinBytes),
        readLine: () => Promise.resolve(undefined),
      },
      stdout,
      stderr,
      fs: { ...runtime.fs, ...o.fs },
      launchDetached: o.launchDetached,
      keyring,
      createTransport(options) {
        transports.push(options);
        return Promise.resolve(
          fetchTransport((input, init) => answer(handler(new Request(input, init)), init.signal ?? undefined)),
        );
      },
      confirm(question) {
        questions.push(question);
        return Promise.resolve(answers.shift() ?? false);
      },
      interrupt: o.interrupt ?? new AbortController().signal,
      now: o.now ?? Date.now,
    };
    const code = await run(argv, ctx, root);
    return { code, stdout: stdout.text(), stderr: stderr.text(), requests, traceparents, transports };
  };
  return Object.assign(ctl, {
    emulator,
    dir,
    questions,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  });
}

/** The handler's response, or, as `fetch` does, a rejection once `signal` aborts before it comes. */
function answer(response: Response | Promise<Response>, signal: AbortSignal | undefined): Promise<Response> {
  if (!signal) return Promise.resolve(response);
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) return abort();
    signal.addEventListener("abort", abort, { once: true });
    Promise.resolve(response).then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

function fakeKeyring(entries: Record<string, string>): Keyring {
  return {
    get: (name) => Promise.resolve(entries[name]),
    set: (name, secret) => Promise.resolve(void (entries[name] = secret)),
    delete: (name) => Promise.resolve(void delete entries[name]),
  };
}
