import type { ScriptHost } from "../script_host.ts";
import { Partitions } from "./partitions.ts";
import {
  eachEvent,
  type EventLog,
  type EventWatcher,
  type StoredEvent,
  type TaskPorts,
} from "../../task_model/ports.ts";
import { APPEND_LUA, LAST_LUA, RANGE_LUA } from "./event_scripts.ts";
import { FollowerPool, type Subscriber } from "./follow.ts";
import { createScriptedQueue } from "./scripted_queue.ts";
import { createScriptedTaskStore } from "./scripted_tasks.ts";

/** How followers learn of new events. */
export type FollowMode =
  | {
    readonly kind: "subscribe";
    /** Opens the process's one pub/sub connection: events come as messages (see `follow.ts`). */
    readonly subscriber: () => Subscriber;
  }
  | { readonly kind: "poll"; readonly intervalMs: number };

/**
 * The task ports over a Redis-speaking host (ioredis or Upstash REST): the `tasks` port
 * (`scripted_tasks.ts`), the `queue` port (`scripted_queue.ts`) and, here, the `events` port
 * with the scripts of `event_scripts.ts`. `follow` subscribes (one pub/sub connection per
 * process for all the channels it follows: see `follow.ts`) or polls (Upstash: no
 * subscriptions over REST; one poll per followed channel, shared by its followers).
 *
 * @example
 * ```ts ignore
 * const ports = createScriptedTaskPorts(host, { prefix: "storectl:", follow: { kind: "poll", intervalMs: 200 } });
 * ```
 */
export function createScriptedTaskPorts(
  host: ScriptHost,
  options: { prefix?: string; follow: FollowMode; now?: () => number; cluster?: boolean; partitions?: number },
): TaskPorts {
  const partitions = new Partitions(host, {
    prefix: options.prefix ?? "",
    cluster: options.cluster ?? false,
    partitions: options.partitions,
  });
  const tasks = createScriptedTaskStore(partitions, options);

  // Where each followed channel's stream is, found before following it (its notifications are in its slot).
  const followed = new Map<string, { keys: string; followers: number }>();
  const onChannel = async (channel: string, script: string, args: string[]) =>
    await partitions.at(await partitions.channelKeys(channel), script, [channel, ...args]);
  const range = async (channel: string, after: number, limit = 100_000): Promise<StoredEvent[]> =>
    toEvents(await onChannel(channel, RANGE_LUA, [String(after), String(limit)]));
  const last = async (channel: string) => toEvents(await onChannel(channel, LAST_LUA, []))[0]?.id ?? 0;
  const follow = options.follow;
  const pool = new FollowerPool({
    live: follow.kind === "poll" ? follow : {
      kind: "subscribe",
      subscriber: follow.subscriber,
      notifications: (channel) =>
        `${followed.get(channel)?.keys ?? partitions.layout.channelKeys(channel)}n:${channel}`,
    },
    range,
    last,
  });
  async function* subscribed(channel: string, after: number, signal: AbortSignal): AsyncGenerator<StoredEvent[]> {
    const keys = await partitions.channelKeys(channel);
    const entry = followed.get(channel) ?? { keys, followers: 0 };
    followed.set(channel, entry);
    entry.followers++;
    try {
      yield* pool.follow(channel, after, signal);
    } finally {
      if (--entry.followers === 0) followed.delete(channel);
    }
  }
  /** `watch` on the pool, the channel's keys known to its notifications meanwhile (as `subscribed`). */
  function watched(channel: string, after: number, signal: AbortSignal, watcher: EventWatcher) {
    partitions.channelKeys(channel).then((keys) => {
      if (signal.aborted) return;
      const entry = followed.get(channel) ?? { keys, followers: 0 };
      followed.set(channel, entry);
      entry.followers++;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        if (--entry.followers === 0) followed.delete(channel);
      };
      signal.addEventListener("abort", release, { once: true });
      pool.watch(channel, after, signal, {
        take: (batch) => watcher.take(batch),
        end(error) {
          release();
          watcher.end(error);
        },
      });
    }, (error) => {
      if (!signal.aborted) watcher.end(error);
    });
  }
  const events: EventLog = {
    async append(channel, kind, data, maxLength = 0) {
      const id = await onChannel(channel, APPEND_LUA, [kind, JSON.stringify(data), String(maxLength)]);
      return sequence(String(id));
    },
    last,
    range,
    follow: (channel, after, signal) => eachEvent(events.followBatches(channel, after, signal)),
    followBatches: subscribed,
    watch: watched,
  };
  const queue = createScriptedQueue(partitions);
  return {
    tasks,
    events,
    queue,
    close: () => {
      pool.close();
      return Promise.resolve();
    },
  };
}

/** The sequence number of a stream id `0-<n>`. */
function sequence(id: string): number {
  return Number(id.slice(id.indexOf("-") + 1));
}

function toEvents(reply: unknown): StoredEvent[] {
  return (reply as [string, string[]][]).map(([id, fields]) => {
    const f: Record<string, string> = {};
    for (let i = 0; i < fields.length; i += 2) f[String(fields[i])] = String(fields[i + 1]);
    return { id: sequence(String(id)), kind: f.k, data: JSON.parse(f.d) };
  });
}
