import { Redis } from "ioredis";
import { decisionFromReply, SLIDING_WINDOW_LUA } from "../ratelimit/mod.ts";
import type { Store } from "./store.ts";

type WithScript = Redis & {
  storectlSlidingWindow(key: string, limit: number, windowMs: number, member: string): Promise<unknown>;
};

/**
 * Redis over TCP (`redis://`, `rediss://`), for several server processes sharing one limit.
 *
 * The script is sent once and then run with EVALSHA (ioredis falls back to EVAL after a
 * server restart). Commands fail at once while the connection is down instead of queueing,
 * so callers can answer 503; ioredis keeps reconnecting in the background.
 *
 * @example
 * ```ts
 * const store = await createRedisStore("redis://127.0.0.1:6379", { prefix: "storectl:" });
 * ```
 */
export async function createRedisStore(url: string, options: { prefix?: string } = {}): Promise<Store> {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    retryStrategy: (attempt: number) => Math.min(attempt * 100, 1_000),
    lazyConnect: true,
  }) as WithScript;
  client.on("error", () => {}); // each failed command reports its own error
  client.defineCommand("storectlSlidingWindow", { numberOfKeys: 1, lua: SLIDING_WINDOW_LUA });
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw new Error(`Cannot connect to Redis at ${redactUrl(url)}: ${(error as Error).message}`);
  }
  const prefix = options.prefix ?? "";
  return {
    kind: "redis",
    async ping() {
      await client.ping();
    },
    async hitSlidingWindow(key, limit, windowMs) {
      return decisionFromReply(await client.storectlSlidingWindow(prefix + key, limit, windowMs, crypto.randomUUID()));
    },
    async close() {
      await client.quit().catch(() => client.disconnect());
    },
  };
}

/** The URL without its password, for messages. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(invalid URL)";
  }
}
