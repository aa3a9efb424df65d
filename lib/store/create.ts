import { createMemoryStore } from "./memory.ts";
import type { Store } from "./store.ts";
import { isClusterUrl } from "./cluster_url.ts";

/** Where the store lives, from the environment. */
export interface StoreConfig {
  /** `memory:` (default), `redis://…`, `rediss://…`, `redis-cluster://h1:p1,h2:p2,…` or `rediss-cluster://…`. */
  readonly url?: string;
  /** The Redis password when the URL has none (`STORE_PASSWORD`). */
  readonly password?: string;
  readonly upstash?: { readonly url: string; readonly token: string };
  readonly prefix?: string;
  /** Deadline of each store command in milliseconds (`STORE_TIMEOUT_MS`); default 1000. */
  readonly timeoutMs?: number;
  /** For `rediss://` and `rediss-cluster://`: CA certificates (PEM) to trust besides the system's (`STORE_TLS_CA_FILE`). */
  readonly tlsCa?: string;
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
  const redis = { prefix: config.prefix, timeoutMs: config.timeoutMs, password: config.password, tlsCa: config.tlsCa };
  if (isClusterUrl(url)) return await (await import("./redis_cluster.ts")).createRedisClusterStore(url, redis);
  if (/^rediss?:\/\//.test(url)) return await (await import("./redis.ts")).createRedisStore(url, redis);
  throw new Error(
    `STORE_URL '${url}' is not supported: use memory:, redis://host:port, rediss://host:port or redis-cluster://host:port,host:port,…`,
  );
}
