import { Redis } from "@upstash/redis";
import { decisionFromReply, SLIDING_WINDOW_LUA } from "../ratelimit/mod.ts";
import { DEFAULT_STORE_TIMEOUT_MS, type Store, StoreUnavailableError } from "./store.ts";
import type { ScriptHost } from "./script_host.ts";
import { assembleStore, scriptedPorts } from "./assemble.ts";

/**
 * Redis over Upstash's REST API, for edge runtimes without TCP. The script runs with EVALSHA,
 * falling back to EVAL when the server does not know it yet. Each request is aborted after
 * `timeoutMs` (default 1000); failures reject with a `StoreUnavailableError` naming the host
 * ("Upstash at eu1-example.upstash.io did not answer within 1000 ms"), never the token.
 *
 * @example
 * ```ts
 * import { createUpstashStore } from "./upstash.ts";
 * const store = createUpstashStore({ url: "https://eu1-example.upstash.io", token: "…" });
 * ```
 */
export function createUpstashStore(
  options: { url: string; token: string; prefix?: string; timeoutMs?: number; pollMs?: number },
): Store {
  const timeoutMs = options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  const redis = new Redis({
    url: options.url,
    token: options.token,
    enableTelemetry: false,
    retry: false,
    signal: () => AbortSignal.timeout(timeoutMs), // a fresh deadline for each request
  });
  const script = redis.createScript(SLIDING_WINDOW_LUA);
  const prefix = options.prefix ?? "";
  const where = `Upstash at ${hostOf(options.url)}`;
  /** Runs a request, turning the client's errors into ours. */
  const call = async <T>(request: () => Promise<T>): Promise<T> => {
    try {
      return await request();
    } catch (error) {
      const { name, message } = error as Error;
      if (name === "TimeoutError" || name === "AbortError") {
        throw new StoreUnavailableError(`${where} did not answer within ${timeoutMs} ms`, { cause: error });
      }
      if (name === "UpstashError") {
        // Its message quotes the command (keys and all): keep only the server's words.
        const words = message.replace(/, command was: [\s\S]*$/, "");
        throw new StoreUnavailableError(`${where} refused the command: ${words}`, { cause: error });
      }
      throw new StoreUnavailableError(`${where} is not reachable (${message})`, { cause: error });
    }
  };
  // Task scripts return JSON text that must stay text.
  const raw = new Redis({
    url: options.url,
    token: options.token,
    enableTelemetry: false,
    retry: false,
    automaticDeserialization: false,
    signal: () => AbortSignal.timeout(timeoutMs),
  });
  const host: ScriptHost = {
    evalsha: (sha, keys, args) => call(() => raw.evalsha(sha, keys, args)),
    eval: (lua, keys, args) => call(() => raw.eval(lua, keys, args)),
  };
  return assembleStore(
    {
      kind: "upstash",
      async ping() {
        await call(() => redis.ping());
      },
      async hitSlidingWindow(key, limit, windowMs) {
        const reply = await call(() =>
          script.exec([prefix + key], [String(limit), String(windowMs), crypto.randomUUID()])
        );
        return decisionFromReply(reply);
      },
      close: () => Promise.resolve(), // REST: no connection to close
    },
    prefix,
    (at) => scriptedPorts(host, at, { follow: { kind: "poll", intervalMs: options.pollMs ?? 250 } }),
  );
}

/** The URL's host (and port), for messages: never its path, query or credentials. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "(invalid URL)";
  }
}
