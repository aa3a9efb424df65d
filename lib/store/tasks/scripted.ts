import { type ScriptHost, scriptRunner } from "../script_host.ts";
import { eachEvent, type EventLog, type StoredEvent, type TaskPorts } from "./port.ts";
import { APPEND_LUA, LAST_LUA, RANGE_LUA } from "./event_scripts.ts";
import { createScriptedQueue } from "./scripted_queue.ts";
import { createScriptedTaskStore } from "./scripted_tasks.ts";

/**
 * A blocking reader on a connection of its own (Redis over TCP): `XREAD BLOCK` on one stream
 * after an id; resolves with XREAD's reply (null on timeout). `close()` ends a pending read.
 */
export interface BlockingReader {
  read(key: string, afterId: string, blockMs: number): Promise<unknown>;
  close(): void;
}

/** How followers learn of new events. */
export type FollowMode =
  | { readonly kind: "block"; readonly reader: () => BlockingReader; readonly blockMs?: number }
  | { readonly kind: "poll"; readonly intervalMs: number };

/**
 * The task ports over a Redis-speaking host (ioredis or Upstash REST): the `tasks` port
 * (`scripted_tasks.ts`), the `queue` port (`scripted_queue.ts`) and, here, the `events` port
 * with the scripts of `event_scripts.ts`. `follow` blocks (one reader connection per followed
 * channel per process, shared by all its followers) or polls (Upstash: no blocking reads over REST).
 *
 * @example
 * ```ts ignore
 * const ports = createScriptedTaskPorts(host, { prefix: "storectl:", follow: { kind: "poll", intervalMs: 200 } });
 * ```
 */
export function createScriptedTaskPorts(
  host: ScriptHost,
  options: { prefix?: string; follow: FollowMode; now?: () => number },
): TaskPorts {
  const p = `${options.prefix ?? ""}{t}:`;
  const slotKey = [`${p}seq`];
  const runScript = scriptRunner(host, slotKey);
  const run = (script: string, args: string[]) => runScript(script, [p, ...args]);

  const tasks = createScriptedTaskStore(run, options);

  const range = async (channel: string, after: number, limit = 100_000): Promise<StoredEvent[]> =>
    toEvents(await run(RANGE_LUA, [channel, String(after), String(limit)]));
  const last = async (channel: string) => toEvents(await run(LAST_LUA, [channel]))[0]?.id ?? 0;
  const hubs = new Map<string, Hub>();
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
      const mode = options.follow;
      let hub = hubs.get(channel);
      if (!hub) {
        hub = new Hub(
          `${p}ev:${channel}`,
          range.bind(null, channel),
          () => last(channel),
          mode.reader,
          mode.blockMs ?? 5_000,
          () => {
            hubs.delete(channel);
          },
        );
        hubs.set(channel, hub);
      }
      return hub.follow(after, signal);
    },
  };
  const queue = createScriptedQueue(run);
  return {
    tasks,
    events,
    queue,
    close: () => {
      for (const hub of hubs.values()) hub.stop();
      hubs.clear();
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

interface Follower {
  push(events: StoredEvent[]): void;
}

/**
 * One blocking reader per channel and process, shared by every follower of the channel. A
 * follower attaches first, then reads the history, then takes live events above the last id
 * it yielded: the reader started after a known position, so nothing falls between the two.
 */
class Hub {
  readonly #key: string;
  readonly #range: (after: number) => Promise<StoredEvent[]>;
  readonly #last: () => Promise<number>;
  readonly #reader: () => BlockingReader;
  readonly #blockMs: number;
  readonly #onIdle: () => void;
  readonly #followers = new Set<Follower>();
  #connection?: BlockingReader;
  #started?: Promise<void>;
  #stopped = false;

  constructor(
    key: string,
    range: (after: number) => Promise<StoredEvent[]>,
    last: () => Promise<number>,
    reader: () => BlockingReader,
    blockMs: number,
    onIdle: () => void,
  ) {
    this.#key = key;
    this.#range = range;
    this.#last = last;
    this.#reader = reader;
    this.#blockMs = blockMs;
    this.#onIdle = onIdle;
  }

  async *follow(after: number, signal: AbortSignal): AsyncGenerator<StoredEvent[]> {
    let queue: StoredEvent[] = [];
    let wake: (() => void) | undefined;
    const follower: Follower = {
      push(events) {
        for (const event of events) queue.push(event); // amortised O(1): a lagging follower's queue is not copied
        wake?.();
      },
    };
    const onAbort = () => wake?.();
    signal.addEventListener("abort", onAbort);
    this.#followers.add(follower);
    try {
      await this.#start();
      let last = after;
      const history = await this.#range(after);
      if (history.length > 0 && !signal.aborted) {
        last = history[history.length - 1].id;
        yield history;
      }
      while (!signal.aborted && !this.#stopped) {
        if (queue.length === 0) {
          await new Promise<void>((resolve) => wake = resolve);
          wake = undefined;
          continue;
        }
        const batch = queue.filter((e) => e.id > last); // the history may already hold the first live ones
        queue = [];
        if (batch.length === 0) continue;
        last = batch[batch.length - 1].id;
        yield batch;
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.#followers.delete(follower);
      if (this.#followers.size === 0) this.stop();
    }
  }

  /** Learns the stream's last id, then reads on from it in the background. */
  #start(): Promise<void> {
    return this.#started ??= (async () => {
      const connection = this.#connection = this.#reader();
      void this.#loop(connection, `0-${await this.#last()}`);
    })();
  }

  async #loop(connection: BlockingReader, from: string) {
    let last = from;
    while (!this.#stopped) {
      try {
        const reply = await connection.read(this.#key, last, this.#blockMs) as [string, [string, string[]][]][] | null;
        if (!reply) continue;
        const events = toEvents(reply[0][1]);
        if (events.length === 0) continue;
        last = `0-${events[events.length - 1].id}`;
        for (const follower of this.#followers) follower.push(events);
      } catch {
        if (this.#stopped) return;
        await sleep(200);
      }
    }
  }

  stop() {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#connection?.close();
    for (const follower of this.#followers) follower.push([]);
    this.#onIdle();
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
