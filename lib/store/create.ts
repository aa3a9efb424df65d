import { createMemoryStore } from "./memory.ts";
import type { Store } from "./store.ts";

/** Where the store lives, from the environment. */
export interface StoreConfig {
  /** `memory:` (default), `redis://…` or `rediss://…`. */
  readonly url?: string;
  readonly upstash?: { readonly url: string; readonly token: string };
  readonly prefix?: string;
  /** Deadline of each store command in milliseconds (`STORE_TIMEOUT_MS`); default 1000. */
  readonly timeoutMs?: number;
}

/**
 * Opens the configured store. Redis and Upstash clients load only when chosen, so the default
 * embedded store starts without them.
 */
export async function openStore(config: StoreConfig): Promise<Store> {
  if (config.upstash) {
    const { createUpstashStore } = await import("./upstash.ts");
    return createUpstashStore({ ...config.upstash, prefix: config.prefix, timeoutMs: config.timeoutMs });
  }
  const url = config.url ?? "memory:";
  if (url === "memory:") return createMemoryStore({ prefix: config.prefix });
  if (/^rediss?:\/\//.test(url)) {
    const { createRedisStore } = await import("./redis.ts");
    return await createRedisStore(url, { prefix: config.prefix, timeoutMs: config.timeoutMs });
  }
  throw new Error(`STORE_URL '${url}' is not supported: use memory:, redis://host:port or rediss://host:port`);
}
