import { Redis } from "@upstash/redis";
import { decisionFromReply, SLIDING_WINDOW_LUA } from "../ratelimit/mod.ts";
import type { Store } from "./store.ts";
import { createScriptedTaskPorts } from "./tasks/scripted.ts";

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
export function createUpstashStore(options: { url: string; token: string; prefix?: string; pollMs?: number }): Store {
  const redis = new Redis({ url: options.url, token: options.token, enableTelemetry: false, retry: false });
  const script = redis.createScript(SLIDING_WINDOW_LUA);
  const prefix = options.prefix ?? "";
  // Task scripts return JSON text that must stay text.
  const raw = new Redis({
    url: options.url,
    token: options.token,
    enableTelemetry: false,
    retry: false,
    automaticDeserialization: false,
  });
  const ports = createScriptedTaskPorts({
    evalsha: (sha, keys, args) => raw.evalsha(sha, keys, args),
    eval: (lua, keys, args) => raw.eval(lua, keys, args),
  }, { prefix, follow: { kind: "poll", intervalMs: options.pollMs ?? 250 } });
  return {
    kind: "upstash",
    async ping() {
      await redis.ping();
    },
    async hitSlidingWindow(key, limit, windowMs) {
      const reply = await script.exec([prefix + key], [String(limit), String(windowMs), crypto.randomUUID()]);
      return decisionFromReply(reply);
    },
    tasks: ports.tasks,
    events: ports.events,
    queue: ports.queue,
    close: () => ports.close(),
  };
}
