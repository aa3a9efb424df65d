import { type ScriptHost, scriptRunner } from "../script_host.ts";
import {
  DEFAULT_LANE,
  eachEvent,
  type EventLog,
  type NewTask,
  SHARED_CHANNEL_CAP,
  type StepOutcome,
  type StoredEvent,
  type TaskPage,
  type TaskPorts,
  type TaskRecord,
  type TaskStatus,
  type TaskStep,
  type TaskStore,
  type TaskUpdate,
  type WorkQueue,
} from "./port.ts";
import {
  ACK_LUA,
  APPEND_LUA,
  CANCEL_LUA,
  CHILDREN_LUA,
  CREATE_LUA,
  GET_LUA,
  LAST_LUA,
  LIST_LUA,
  PUSH_LUA,
  RANGE_LUA,
  RELEASE_LUA,
  REMOVE_LUA,
  RENEW_LUA,
  REQUEUE_LUA,
  STEP_LUA,
  TAKE_LUA,
} from "./scripts.ts";

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
 * The `tasks` and `events` ports over a Redis-speaking host (ioredis or Upstash REST), with the
 * scripts of `scripts.ts`. `follow` blocks (one reader connection per followed channel per
 * process, shared by all its followers) or polls (Upstash: no blocking reads over REST).
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
  const now = () => new Date((options.now ?? Date.now)()).toISOString();
  const runScript = scriptRunner(host, slotKey);
  const run = (script: string, args: string[]) => runScript(script, [p, ...args]);
  let retentionMs = 0;
  const write = (script: string, args: string[]) =>
    run(script, [now(), String(SHARED_CHANNEL_CAP), String(retentionMs), ...args]);

  const tasks: TaskStore = {
    async create(task: NewTask) {
      const reply = await write(CREATE_LUA, [
        task.task_id,
        task.kind,
        task.session_id,
        JSON.stringify(task.metadata),
        JSON.stringify(task.input ?? null),
        task.parent_id ?? "",
        task.spawn_key ?? "",
      ]);
      return Number(reply) === 1;
    },
    async get(taskId) {
      const reply = await run(GET_LUA, [taskId]) as [string[], string[]] | [];
      if (reply.length === 0) return undefined;
      return toRecord(reply[0], reply[1].map((u) => JSON.parse(u) as TaskUpdate));
    },
    async list(query): Promise<TaskPage> {
      const index = query.session_id === undefined
        ? (query.status === undefined ? "idx:all" : `idx:status:${query.status}`)
        : `idx:session:${query.session_id}${query.status === undefined ? "" : `:status:${query.status}`}`;
      const [total, ...hashes] = await run(LIST_LUA, [index, query.cursor ?? "0", String(query.limit)]) as [
        number,
        ...string[][],
      ];
      const records = hashes.filter((h) => h.length > 0).map((h) => toRecord(h, []));
      const shown = records.slice(0, query.limit);
      return {
        tasks: shown,
        total: Number(total),
        ...(records.length > query.limit && { next_cursor: String(shown[shown.length - 1].seq) }),
      };
    },
    async children(taskId) {
      const hashes = await run(CHILDREN_LUA, [taskId]) as string[][];
      return hashes.map((h) => toRecord(h, []));
    },
    async step(taskId: string, step: TaskStep): Promise<StepOutcome> {
      const fields: string[] = [];
      if (step.result !== undefined) fields.push("result", JSON.stringify(step.result));
      if (step.error !== undefined) fields.push("error", step.error);
      if (step.input !== undefined) fields.push("input", JSON.stringify(step.input));
      if (step.prompt !== undefined) fields.push("prompt", step.prompt ?? "");
      if (step.answer !== undefined) fields.push("answer", step.answer === null ? "" : JSON.stringify(step.answer));
      const reply = await write(STEP_LUA, [
        taskId,
        step.to ?? "",
        (step.from ?? []).join(","),
        String(fields.length / 2),
        ...fields,
        step.update ? JSON.stringify(step.update) : "",
        step.event?.kind ?? "",
        JSON.stringify(step.event?.payload ?? {}),
        step.id?.run ?? "",
        String(step.id?.n ?? 0),
      ]) as [number, string?];
      if (Number(reply[0]) === 1) return { ok: true };
      return reply[1] ? { ok: false, status: reply[1] as TaskStatus } : { ok: false };
    },
    async cancel(taskId, cascade) {
      const [found, ...cancelled] = await write(CANCEL_LUA, [taskId, cascade ? "1" : "0"]) as [number, ...string[]];
      return { found: Number(found) === 1, cancelled: cancelled.map(String) };
    },
    async remove(taskId) {
      return (await write(REMOVE_LUA, [taskId]) as string[]).map(String);
    },
    retain(ms) {
      retentionMs = Math.max(0, Math.round(ms));
    },
  };

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
  // A job id is `<lane>/<stream id>`: the lane names the stream of the calls that follow.
  const queueOf = (lane: string) => lane === DEFAULT_LANE ? "queue" : `queue:${lane}`;
  const job = (jobId: string) => {
    const at = jobId.lastIndexOf("/");
    return [queueOf(jobId.slice(0, at)), jobId.slice(at + 1)];
  };
  const queue: WorkQueue = {
    async push(taskId, attempt = 1, lane = DEFAULT_LANE) {
      await run(PUSH_LUA, [queueOf(lane), taskId, String(attempt)]);
    },
    async take(consumer, leaseMs, lanes = [DEFAULT_LANE]) {
      const names = new Map(lanes.map((lane) => [queueOf(lane), lane]));
      const reply = await run(TAKE_LUA, [consumer, String(leaseMs), ...names.keys()]) as
        | [string, string, number, string[]]
        | null;
      if (!reply) return undefined;
      const lane = names.get(String(reply[0]))!;
      const f: Record<string, string> = {};
      for (let i = 0; i < reply[3].length; i += 2) f[String(reply[3][i])] = String(reply[3][i + 1]);
      return {
        id: `${lane}/${reply[1]}`,
        taskId: f.task,
        lane,
        attempt: Number(f.attempt),
        reclaimed: Number(reply[2]) === 1,
      };
    },
    async renew(consumer, jobId) {
      const [name, id] = job(jobId);
      await run(RENEW_LUA, [name, consumer, id]);
    },
    async ack(jobId) {
      await run(ACK_LUA, job(jobId));
    },
    async requeue(jobId, taskId, attempt) {
      await run(REQUEUE_LUA, [...job(jobId), taskId, String(attempt)]);
    },
    async release(consumer, jobId) {
      const [name, id] = job(jobId);
      await run(RELEASE_LUA, [name, consumer, id]);
    },
  };
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

function toRecord(flat: string[], updates: TaskUpdate[]): TaskRecord {
  const h: Record<string, string> = {};
  for (let i = 0; i < flat.length; i += 2) h[String(flat[i])] = String(flat[i + 1]);
  return {
    task_id: h.task_id,
    kind: h.kind,
    session_id: h.session_id,
    status: h.status as TaskStatus,
    metadata: JSON.parse(h.metadata),
    input: JSON.parse(h.input),
    ...(h.result !== undefined && { result: JSON.parse(h.result) }),
    ...(h.error !== undefined && { error: h.error }),
    ...(h.prompt !== undefined && { prompt: h.prompt }),
    ...(h.answer !== undefined && { answer: JSON.parse(h.answer) }),
    ...(h.parent_id !== undefined && { parent_id: h.parent_id, spawn_key: h.spawn_key }),
    created_at: h.created_at,
    updated_at: h.updated_at,
    seq: Number(h.seq),
    updates,
  };
}
