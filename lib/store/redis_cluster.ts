import { Cluster, ReplyError } from "ioredis";
import { SLIDING_WINDOW_LUA } from "../ratelimit/mod.ts";
import { DEFAULT_STORE_TIMEOUT_MS, type Store, StoreUnavailableError } from "./store.ts";
import type { ScriptHost } from "./script_host.ts";
import { parseClusterUrl } from "./cluster_url.ts";
import { decisionFromReply } from "../ratelimit/mod.ts";
import { connectionFailure, ioredisBase, type RedisStoreOptions, type SlidingWindowCommand } from "./redis.ts";
import type { Subscriber } from "./tasks/follow.ts";
import { sharedSubscriber } from "./tasks/shared_subscriber.ts";
import { clusterPartitions } from "./tasks/partitions.ts";
import { assembleStore, scriptedPorts } from "./assemble.ts";

/** The pause before ioredis retries a command refused with TRYAGAIN or CLUSTERDOWN, or on a closed connection. */
const RETRY_DELAY_MS = 100;

type WithScript = Cluster & SlidingWindowCommand;

/**
 * Redis Cluster (`redis-cluster://h1:p1,h2:p2,…`, `rediss-cluster://` for TLS) over ioredis'
 * `Cluster`: each command and script goes to the master of its key's slot (ioredis follows
 * `MOVED` and `ASK` and refreshes its slot map). Every script names a key of its slot and
 * touches only keys of that slot (see `tasks/task_scripts.ts` for how the data spreads).
 *
 * Event notifications use sharded pub/sub (`SPUBLISH` inside the scripts, `SSUBSCRIBE` here,
 * Redis 7.0): a notification goes only to the shard that holds its channel's slot, and the
 * process keeps one subscriber connection per shard it follows channels on (ioredis'
 * `shardedSubscribers`), so connections stay bounded by the number of masters, tenant views
 * (`forTenant`) included.
 *
 * The password comes from the URL, else `password` (`STORE_PASSWORD`). A call either answers or
 * fails with a `StoreUnavailableError` (in our words) within `timeoutMs` (`STORE_TIMEOUT_MS`):
 * ioredis follows `MOVED`/`ASK` at once and retries `TRYAGAIN`, `CLUSTERDOWN` and closed
 * connections every 100 ms (refreshing its slot map), and one deadline covers the call with all
 * its retries. Nothing is queued while the cluster is unreachable (no offline queue).
 *
 * @example
 * ```ts ignore
 * const store = await createRedisClusterStore("redis-cluster://10.0.0.1:7000,10.0.0.2:7000", { prefix: "storectl:" });
 * ```
 */
export async function createRedisClusterStore(url: string, options: RedisStoreOptions = {}): Promise<Store> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  const parsed = parseClusterUrl(url);
  const password = parsed.password ?? options.password;
  const seeds = parsed.nodes.map(({ host, port }) => `${host.includes(":") ? `[${host}]` : host}:${port}`).join(",");
  const where = `Redis Cluster at ${seeds}`;
  const client = new Cluster(parsed.nodes.map(({ host, port }) => ({ host, port })), {
    enableOfflineQueue: false,
    lazyConnect: true,
    shardedSubscribers: true,
    slotsRefreshTimeout: Math.max(timeoutMs, 1_000),
    clusterRetryStrategy: (attempt: number) => Math.min(attempt * 100, 1_000),
    // Redirections and retries (see `call` for the deadline over them all): MOVED at once, ASK
    // at once, TRYAGAIN, CLUSTERDOWN and a closed connection after RETRY_DELAY_MS, as often as
    // fits in the deadline (at least ioredis' 16), so a long STORE_TIMEOUT_MS rides out a failover.
    retryDelayOnMoved: 0,
    retryDelayOnTryAgain: RETRY_DELAY_MS,
    retryDelayOnClusterDown: RETRY_DELAY_MS,
    retryDelayOnFailover: RETRY_DELAY_MS,
    maxRedirections: Math.max(16, Math.ceil(timeoutMs / RETRY_DELAY_MS) + 16),
    redisOptions: {
      maxRetriesPerRequest: 0,
      commandTimeout: timeoutMs,
      connectTimeout: 2_000,
      ...(parsed.username !== undefined && { username: parsed.username }),
      ...(password !== undefined && { password }),
      ...(parsed.tls && { tls: options.tlsCa === undefined ? {} : { ca: options.tlsCa } }),
    },
    ...(parsed.tls &&
      { dnsLookup: (address: string, callback: (e: null, a: string) => void) => callback(null, address) }),
  }) as WithScript;
  let connectionError: Error | undefined;
  // "Failed to refresh slots cache" says less than the last node's own error.
  client.on(
    "error",
    (error: Error & { lastNodeError?: Error }) => void (connectionError = error.lastNodeError ?? error),
  );
  client.on("node error", (error: Error) => void (connectionError = error));
  client.on("ready", () => void (connectionError = undefined));
  client.defineCommand("storectlSlidingWindow", { numberOfKeys: 1, lua: SLIDING_WINDOW_LUA });
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    const reason = connectionFailure(connectionError ?? error);
    // ioredis reports a refused or closed seed as "Connection is closed": say what is known.
    // Over TLS an untrusted certificate closes the connection the same way (ioredis keeps the reason).
    const why = reason !== "connection lost"
      ? reason
      : parsed.tls
      ? "no seed node answered over TLS (is the nodes' certificate trusted? STORE_TLS_CA_FILE names a CA to trust)"
      : "no seed node answered";
    const next = /NOAUTH|WRONGPASS/.test(why)
      ? "set its password in STORE_URL or STORE_PASSWORD"
      : "start the cluster there or fix STORE_URL";
    throw new Error(`Cannot connect to ${where}: ${why}; ${next}`, { cause: error });
  }
  // One deadline over a call and every retry ioredis makes for it. ioredis' own command timer
  // starts only when a node is first sent the command; a command refused before (its node's
  // connection closed) waits for slot-map refreshes, which can hang on an unresponsive node.
  const call = async <T>(command: () => Promise<T>): Promise<T> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("Command timed out")), timeoutMs);
    });
    try {
      return await Promise.race([command(), deadline]);
    } catch (error) {
      if (error instanceof ReplyError) {
        throw new StoreUnavailableError(`${where} refused the command: ${(error as Error).message}`, { cause: error });
      }
      if ((error as Error).message === "Command timed out") {
        throw new StoreUnavailableError(`${where} did not answer within ${timeoutMs} ms`, { cause: error });
      }
      const reason = connectionFailure(connectionError ?? error);
      throw new StoreUnavailableError(`${where} is not reachable (${reason}); retrying`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  };
  const prefix = options.prefix ?? "";
  const scripts: ScriptHost = {
    evalsha: (sha, keys, args) => call(() => client.evalsha(sha, keys.length, ...keys, ...args)),
    eval: (lua, keys, args) => call(() => client.eval(lua, keys.length, ...keys, ...args)),
  };
  // One set of sharded subscribers (one connection per shard) for the base and every tenant view.
  const subscriber = sharedSubscriber(() => shardedSubscriber(client, call));
  const partitions = await clusterPartitions(scripts, prefix).catch((error) => {
    client.disconnect();
    throw error;
  });
  return assembleStore(
    {
      kind: "redis-cluster",
      async ping() {
        // PING answers on a cluster that serves no slot: its state says whether commands would run.
        const info = await call(() => client.cluster("INFO"));
        const state = /cluster_state:(\w+)/.exec(String(info))?.[1];
        if (state !== "ok") {
          throw new StoreUnavailableError(`${where} is down (cluster_state:${state}); waiting for it to recover`);
        }
      },
      ...ioredisBase(client, call, prefix),
      // A hit is answered once the key's replica holds it (WAIT), or after REPLICA_ACK_MS without one: a master
      // killed just after an answer cannot take the window's counts with it (replication is asynchronous).
      async hitSlidingWindow(key, limit, windowMs) {
        const member = crypto.randomUUID();
        const pipeline = client.pipeline() as unknown as SlidingWindowPipeline;
        const results = await call(() =>
          pipeline.storectlSlidingWindow(prefix + key, limit, windowMs, member).wait(1, REPLICA_ACK_MS).exec()
        );
        const [error, reply] = results?.[0] ?? [new Error("no reply"), undefined];
        // The slot moves or the cluster settles: a pipeline does not follow that, a plain call does (no WAIT, this once).
        if (error && /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN) /.test(error.message)) {
          return decisionFromReply(
            await call(() => client.storectlSlidingWindow(prefix + key, limit, windowMs, member)),
          );
        }
        if (error) throw error;
        return decisionFromReply(reply);
      },
    },
    prefix,
    (at) => scriptedPorts(scripts, at, { cluster: true, partitions, follow: { kind: "subscribe", subscriber } }),
  );
}

/** How long an answer of the rate limit waits for the key's replica to hold the hit (then it answers anyway). */
const REPLICA_ACK_MS = 100;

/** A pipeline of the sliding-window script and WAIT, as ioredis runs it on the key's node. */
interface SlidingWindowPipeline {
  storectlSlidingWindow(key: string, limit: number, windowMs: number, member: string): SlidingWindowPipeline;
  wait(replicas: number, timeoutMs: number): SlidingWindowPipeline;
  exec(): Promise<[Error | null, unknown][] | null>;
}

/**
 * The follower pool's subscriber over the cluster's sharded subscribers: `SSUBSCRIBE` goes to
 * the shard of the channel's slot; after a topology change ioredis subscribes again and says
 * so (`subscribersReady`), and the pool then reads what it may have missed.
 */
function shardedSubscriber(client: Cluster, call: <T>(command: () => Promise<T>) => Promise<T>): Subscriber {
  type Handler = (...args: string[]) => void;
  const handlers: [string, Handler][] = [];
  const on = (event: string, handler: Handler) => {
    handlers.push([event, handler]);
    client.on(event, handler);
  };
  const channels = new Set<string>();
  return {
    subscribe: async (channel) => {
      channels.add(channel);
      await call(() => client.ssubscribe(channel));
    },
    unsubscribe: async (channel) => {
      channels.delete(channel);
      await call(() => client.sunsubscribe(channel));
    },
    onMessage: (handler) => on("smessage", handler as Handler),
    onReconnect: (handler) => on("subscribersReady", handler),
    close() {
      for (const [event, handler] of handlers.splice(0)) client.off(event, handler);
      for (const channel of channels) client.sunsubscribe(channel).catch(() => {});
      channels.clear();
    },
  };
}
