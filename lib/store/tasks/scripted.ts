import { type ScriptHost, scriptRunner } from "../script_host.ts";
import { eachEvent, type EventLog, type StoredEvent, type TaskPorts } from "./port.ts";
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
  const p = `${options.prefix ?? ""}{t}:`;
  const slotKey = [`${p}seq`];
  const runScript = scriptRunner(host, slotKey);
  // On a cluster the scripts notify followers with sharded pub/sub: to the shard of the channel's slot only.
  const sharded = new Map<string, string>();
  const variant = (script: string) => {
    if (!options.cluster) return script;
    let text = sharded.get(script);
    if (text === undefined) sharded.set(script, text = script.replaceAll("'PUBLISH'", "'SPUBLISH'"));
    return text;
  };
  const run = (script: string, args: string[]) => runScript(variant(script), [p, ...args]);

  const tasks = createScriptedTaskStore(run, options);

  const range = async (channel: string, after: number, limit = 100_000): Promise<StoredEvent[]> =>
    toEvents(await run(RANGE_LUA, [channel, String(after), String(limit)]));
  const last = async (channel: string) => toEvents(await run(LAST_LUA, [channel]))[0]?.id ?? 0;
  const pool = options.follow.kind === "subscribe"
    ? new FollowerPool({
      subscriber: options.follow.subscriber,
      notifications: (channel) => `${p}n:${channel}`,
      range,
      last,
    })
    : undefined;
  const events: EventLog = {
    async append(channel, kind, data, maxLength = 0) {
      const id = await run(APPEND_LUA, [channel, kind, JSON.stringify(data), String(maxLength)]);
      return sequence(String(id));
    },
    last,
    range,
    follow: (channel, after, signal) => eachEvent(events.followBatches(channel, after, signal)),
    followBatches(channel, after, signal) {
      if (options.follow.kind === "poll") return poll(range, channel, after, signal, options.follow.intervalMs);
      return pool!.follow(channel, after, signal);
    },
  };
  const queue = createScriptedQueue(run);
  return {
    tasks,
    events,
    queue,
    close: () => {
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
    } else await sleep(intervalMs, signal);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
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
