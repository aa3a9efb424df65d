import { Redis, ReplyError } from "ioredis";
import { decisionFromReply, SLIDING_WINDOW_LUA } from "../ratelimit/mod.ts";
import { DEFAULT_STORE_TIMEOUT_MS, type Store, StoreUnavailableError } from "./store.ts";
import type { ScriptHost } from "./script_host.ts";
import { sharedSubscriber } from "./tasks/shared_subscriber.ts";
import { assembleStore, scriptedPorts } from "./assemble.ts";

type WithScript = Redis & SlidingWindowCommand;

/** The sliding-window script as a command of an ioredis client (one Redis or a cluster). */
export interface SlidingWindowCommand {
  storectlSlidingWindow(key: string, limit: number, windowMs: number, member: string): Promise<unknown>;
  quit(): Promise<unknown>;
  disconnect(): void;
}

/** The sliding window and the closing of an ioredis client, its calls made through `call` (in our words). */
export function ioredisBase(
  client: SlidingWindowCommand,
  call: <T>(command: () => Promise<T>) => Promise<T>,
  prefix: string,
): Pick<Store, "hitSlidingWindow" | "close"> {
  return {
    async hitSlidingWindow(key, limit, windowMs) {
      const reply = await call(() => client.storectlSlidingWindow(prefix + key, limit, windowMs, crypto.randomUUID()));
      return decisionFromReply(reply);
    },
    close: () => client.quit().then(() => {}, () => client.disconnect()),
  };
}

/** How a Redis (or Redis Cluster) store connects. */
export interface RedisStoreOptions {
  /** Put before every key. */
  readonly prefix?: string;
  /** How long a call may take before the store counts as unavailable. */
  readonly timeoutMs?: number;
  readonly password?: string;
  /** For `rediss://` and `rediss-cluster://`: CA certificates (PEM) to trust besides the system's. */
  readonly tlsCa?: string;
}

/**
 * Redis over TCP (`redis://`, `rediss://`), for several server processes sharing one limit.
 *
 * The script is sent once and then run with EVALSHA (ioredis falls back to EVAL after a
 * server restart). Commands fail at once while the connection is down instead of queueing,
 * so callers can answer 503; ioredis keeps reconnecting in the background. A server that
 * holds the connection but does not answer (paused, swapping, a long script) fails a command
 * after `timeoutMs` (default 1000); the connection is then dropped and opened again, so the
 * commands that follow fail at once until the server answers, instead of piling up and
 * running late when it resumes. Failures reject with a `StoreUnavailableError` in our words
 * ("Redis at 127.0.0.1:6379 is not reachable (connection refused); retrying"), ioredis' own
 * error as its `cause`.
 *
 * A command that timed out cannot be withdrawn: a stalled server may still run it when it
 * resumes, so a request answered 503 may count against its caller (the limit errs on the safe
 * side); the reconnect limits that to the commands sent within one deadline.
 *
 * Followers of event channels use one more connection, however many channels they follow: a
 * pub/sub subscriber that gets each event as it is stored (`tasks/follow.ts`). Tenant views
 * (`forTenant`, `tenant.ts`) run on these two connections too: no connection per tenant.
 *
 * @example
 * ```ts
 * const store = await createRedisStore("redis://127.0.0.1:6379", { prefix: "storectl:" });
 * ```
 */
export async function createRedisStore(url: string, options: RedisStoreOptions = {}): Promise<Store> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  const client = new Redis(url, {
    ...(url.startsWith("rediss://") && options.tlsCa !== undefined && { tls: { ca: options.tlsCa } }),
    // The URL's password wins; STORE_PASSWORD is for URLs without one.
    ...(options.password !== undefined && !passwordIn(url) && { password: options.password }),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: timeoutMs,
    connectTimeout: 2_000,
    retryStrategy: (attempt: number) => Math.min(attempt * 100, 1_000),
    lazyConnect: true,
  }) as WithScript;
  // Connection errors arrive here on each reconnect attempt; failed commands report them.
  let connectionError: Error | undefined;
  // Set when a command timed out, until the reconnected server answers.
  let stalled = false;
  client.on("error", (error: Error) => {
    connectionError = error;
    stalled = false; // the reconnect failed outright: say why, not "did not answer"
  });
  client.on("ready", () => {
    connectionError = undefined;
    stalled = false;
  });
  client.defineCommand("storectlSlidingWindow", { numberOfKeys: 1, lua: SLIDING_WINDOW_LUA });
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw new Error(
      `Cannot connect to Redis at ${redactUrl(url)}: ${
        connectionFailure(connectionError ?? error)
      }; start Redis there or fix STORE_URL`,
      { cause: error },
    );
  }
  const { host = "localhost", port = 6379 } = client.options;
  const where = `Redis at ${host.includes(":") ? `[${host}]` : host}:${port}`;
  /** Runs a command, turning ioredis' errors into ours. */
  const call = async <T>(command: () => Promise<T>): Promise<T> => {
    try {
      return await command();
    } catch (error) {
      if (error instanceof ReplyError) {
        throw new StoreUnavailableError(`${where} refused the command: ${(error as Error).message}`, { cause: error });
      }
      if ((error as Error).message === "Command timed out" || stalled) {
        if (!stalled && client.status === "ready") client.disconnect(true); // drop what is queued on it
        stalled = true;
        throw new StoreUnavailableError(`${where} did not answer within ${timeoutMs} ms; reconnecting`, {
          cause: error,
        });
      }
      const reason = connectionFailure(connectionError ?? error);
      throw new StoreUnavailableError(`${where} is not reachable (${reason}); retrying`, { cause: error });
    }
  };
  const prefix = options.prefix ?? "";
  const scripts: ScriptHost = {
    evalsha: (sha, keys, args) => call(() => client.evalsha(sha, keys.length, ...keys, ...args)),
    eval: (lua, keys, args) => call(() => client.eval(lua, keys.length, ...keys, ...args)),
  };
  // One pub/sub connection for the followers of the base and of every tenant view.
  const subscriber = sharedSubscriber(() => {
    // No ready check: its INFO fails on a connection that SUBSCRIBE, sent while connecting, put in subscriber mode.
    const sub = client.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null, enableReadyCheck: false });
    sub.on("error", () => {}); // it reconnects by itself; the command connection reports outages
    let connected = false;
    return {
      // Failures in our words, as the commands' (a stalled server fails a SUBSCRIBE after timeoutMs too).
      subscribe: async (channel) => void await call(() => sub.subscribe(channel)),
      unsubscribe: async (channel) => void await call(() => sub.unsubscribe(channel)),
      onMessage: (handler) => void sub.on("message", handler),
      onReconnect(handler) {
        sub.on("ready", () => {
          if (!connected) return void (connected = true);
          // ioredis subscribes again right after this event; a PING sent after that and answered says it is done.
          setTimeout(() => sub.ping().then(handler, handler), 0);
        });
      },
      close: () => sub.disconnect(),
    };
  });
  return assembleStore(
    {
      kind: "redis",
      async ping() {
        await call(() => client.ping());
      },
      ...ioredisBase(client, call, prefix),
    },
    prefix,
    (at) => scriptedPorts(scripts, at, { follow: { kind: "subscribe", subscriber } }),
  );
}

const SOCKET_ERRORS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EPIPE: "connection reset",
  ETIMEDOUT: "connection timed out",
  ENOTFOUND: "host name not found",
  EAI_AGAIN: "host name not found",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
};

/**
 * Why the connection failed, in words: the socket error's meaning, or the message of errors
 * that are not ioredis' own (TLS, authentication); "connection lost" for ioredis' internal
 * states ("Stream isn't writeable…", "Connection is closed.").
 */
export function connectionFailure(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  if (code && SOCKET_ERRORS[code]) return SOCKET_ERRORS[code];
  if (!message || /enableOfflineQueue|Connection is closed|max retries per request/i.test(message)) {
    return "connection lost";
  }
  return message;
}

/** Whether the URL carries a password. */
function passwordIn(url: string): boolean {
  try {
    return new URL(url).password !== "";
  } catch {
    return false;
  }
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(invalid URL)";
  }
}
