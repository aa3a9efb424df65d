import { Redis } from "@upstash/redis";
import { decisionFromReply, SLIDING_WINDOW_LUA } from "../ratelimit/mod.ts";
import type { Store } from "./store.ts";

/**
 * Redis over Upstash's REST API, for edge runtimes without TCP. The script runs with EVALSHA,
 * falling back to EVAL when the server does not know it yet.
 *
 * @example
 * ```ts
 * import { createUpstashStore } from "./upstash.ts";
 * const store = createUpstashStore({ url: "https://eu1-example.upstash.io", token: "…" });
 * ```
 */
export function createUpstashStore(options: { url: string; token: string; prefix?: string }): Store {
  const redis = new Redis({ url: options.url, token: options.token, enableTelemetry: false, retry: false });
  const script = redis.createScript(SLIDING_WINDOW_LUA);
  const prefix = options.prefix ?? "";
  return {
    kind: "upstash",
    async ping() {
      await redis.ping();
    },
    async hitSlidingWindow(key, limit, windowMs) {
      const reply = await script.exec([prefix + key], [String(limit), String(windowMs), crypto.randomUUID()]);
      return decisionFromReply(reply);
    },
    close: () => Promise.resolve(),
  };
}
