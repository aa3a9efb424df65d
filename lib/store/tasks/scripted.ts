import type { ScriptHost } from "../script_host.ts";
import { sleep } from "../../time/mod.ts";
import { Partitions } from "./partitions.ts";
import {
  eachEvent,
  type EventLog,
  type EventWatcher,
  type StoredEvent,
  type TaskPorts,
  watchBatches,
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
 * subscriptions over REST).
 *
 * @example
 * ```ts ignore
 * const ports = createScriptedTaskPorts(host, { prefix: "storectl:", follow: { kind: "poll", intervalMs: 200 } });
 * ```
 */
export function createScriptedTaskPorts(
  host: ScriptHost,
  options: { prefix?: string; follow: FollowMode; now?: () => number; cluster?: boolean },
): TaskPorts {
  const partitions = new Partitions(host, { prefix: options.prefix ?? "", cluster: options.cluster ?? false });
  const tasks = createScriptedTaskStore(partitions, options);

  // Where each followed channel's stream is, found before following it (its notifications are in its slot).
  const followed = new Map<string, { keys: string; followers: number }>();
  const onChannel = async (channel: string, script: string, args: string[]) =>
    await partitions.at(await partitions.channelKeys(channel), script, [channel, ...args]);
  const range = async (channel: string, after: number, limit = 100_000): Promise<StoredEvent[]> =>
    toEvents(await onChannel(channel, RANGE_LUA, [String(after), String(limit)]));
  const last = async (channel: string) => toEvents(await onChannel(channel, LAST_LUA, []))[0]?.id ?? 0;
  /** Aborts when the ports close: every poll ends then. */
  const closing = new AbortController();
  const polled = (channel: string, after: number, signal: AbortSignal, intervalMs: number) =>
    poll(range, channel, after, AbortSignal.any([signal, closing.signal]), intervalMs);
  const pool = options.follow.kind === "subscribe"
    ? new FollowerPool({
      subscriber: options.follow.subscriber,
      notifications: (channel) =>
        `${followed.get(channel)?.keys ?? partitions.layout.channelKeys(channel)}n:${channel}`,
      range,
      last,
    })
    : undefined;
  async function* subscribed(channel: string, after: number, signal: AbortSignal): AsyncGenerator<StoredEvent[]> {
    const keys = await partitions.channelKeys(channel);
    const entry = followed.get(channel) ?? { keys, followers: 0 };
    followed.set(channel, entry);
    entry.followers++;
    try {
      yield* pool!.follow(channel, after, signal);
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
      pool!.watch(channel, after, signal, {
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
    followBatches(channel, after, signal) {
      if (options.follow.kind === "poll") return polled(channel, after, signal, options.follow.intervalMs);
      return subscribed(channel, after, signal);
    },
    watch(channel, after, signal, watcher) {
      if (options.follow.kind === "poll") {
        return watchBatches(polled(channel, after, signal, options.follow.intervalMs), signal, watcher);
      }
      watched(channel, after, signal, watcher);
    },
  };
  const queue = createScriptedQueue(partitions);
  return {
    tasks,
    events,
    queue,
    close: () => {
      closing.abort();
      pool?.close();
      return Promise.resolve();
    },
  };
}

/** Polls `range` every `intervalMs` while nothing new is there. */
async function* poll(
  range: (channel: string, after: number) => Promise<StoredEvent[]>,
  channel: string,
  after: number,
  signal: AbortSignal,
  intervalMs: number,
): AsyncGenerator<StoredEvent[]> {
  let last = after;
  while (!signal.aborted) {
    const batch = await range(channel, last);
    if (batch.length > 0 && !signal.aborted) {
      last = batch[batch.length - 1].id;
      yield batch;
    } else await sleep(intervalMs, signal).catch(() => {});
  }
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
