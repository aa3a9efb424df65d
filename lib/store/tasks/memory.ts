import {
  DEFAULT_LANE,
  eachEvent,
  eventData,
  type EventLog,
  FINAL_STATUSES,
  GLOBAL_CHANNEL,
  type Job,
  type NewTask,
  sessionChannel,
  SHARED_CHANNEL_CAP,
  type StepOutcome,
  type StoredEvent,
  SUBTASK_KINDS,
  taskChannel,
  type TaskPage,
  type TaskPorts,
  type TaskQuery,
  type TaskRecord,
  type TaskStatus,
  type TaskStep,
  type TaskStore,
  type TaskUpdate,
  type WorkQueue,
} from "./port.ts";

interface Channel {
  events: StoredEvent[];
  seq: number;
  readonly waiters: Set<() => void>;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
interface Entry {
  record: Mutable<Omit<TaskRecord, "updates">>;
  readonly updates: TaskUpdate[];
  readonly children: string[];
  /** The last applied step with an id (`step_run`, `step_n` on Redis). */
  lastStep?: { readonly run: string; readonly n: number };
}

/**
 * The memory twin of the Redis task scripts: each step is one synchronous block, so it is
 * atomic in one process, and followers wake on append.
 *
 * @example
 * ```ts
 * const { tasks, events } = createMemoryTaskPorts();
 * await tasks.create({ task_id: "t1", kind: "demo", session_id: "s1", metadata: {}, input: {} });
 * await tasks.step("t1", { to: "done", result: { answer: "42" }, event: { kind: "done", payload: { result: { answer: "42" } } } });
 * (await events.range("task:t1", 0)).map((e) => e.kind); // ["done"]
 * ```
 */
export function createMemoryTaskPorts(options: { now?: () => number } = {}): TaskPorts {
  const now = () => new Date((options.now ?? Date.now)()).toISOString();
  const channels = new Map<string, Channel>();
  const tasks = new Map<string, Entry>();
  let seq = 0;
  let retentionMs = 0;
  /** When finished roots go, by id: the twin of the `expiry` sorted set. */
  const expiry = new Map<string, number>();
  const clock = options.now ?? Date.now;

  const channel = (name: string) => {
    let c = channels.get(name);
    if (!c) channels.set(name, c = { events: [], seq: 0, waiters: new Set() });
    return c;
  };
  /** Appends `data` as it is: callers pass a copy of their own. */
  const append = (name: string, kind: string, data: Record<string, unknown>, cap = 0) => {
    const c = channel(name);
    const id = ++c.seq;
    c.events.push({ id, kind, data });
    // Trimmed in batches, like MAXLEN ~ on Redis: one splice per cap/16 appends.
    if (cap > 0 && c.events.length > cap + (cap >> 4)) c.events.splice(0, c.events.length - cap);
    for (const wake of c.waiters) wake();
    c.waiters.clear();
    return id;
  };
  const fanOut = (record: Entry["record"], kind: string, payload: Record<string, unknown> = {}) => {
    if (kind !== "spawned") {
      const data = structuredClone(eventData(record.task_id, payload)); // one copy, shared by the three channels
      append(taskChannel(record.task_id), kind, data);
      append(sessionChannel(record.session_id), kind, data, SHARED_CHANNEL_CAP);
      append(GLOBAL_CHANNEL, kind, data, SHARED_CHANNEL_CAP);
    }
    if (record.parent_id && SUBTASK_KINDS.has(kind)) {
      const sub = { subtask_id: record.task_id, spawn_key: record.spawn_key, ...payload };
      append(taskChannel(record.parent_id), `subtask_${kind}`, structuredClone(eventData(record.parent_id, sub)));
    }
  };
  const scheduleExpiry = (r: Entry["record"]) => {
    if (retentionMs > 0 && r.parent_id === undefined) expiry.set(r.task_id, clock() + retentionMs);
  };
  const removeTree = (taskId: string): string[] => {
    const ids = descendants(taskId);
    const parentId = tasks.get(taskId)?.record.parent_id;
    const parent = parentId === undefined ? undefined : tasks.get(parentId);
    if (parent) parent.children.splice(parent.children.indexOf(taskId), 1);
    for (const id of ids) {
      tasks.delete(id);
      expiry.delete(id);
      const c = channels.get(taskChannel(id));
      channels.delete(taskChannel(id));
      for (const wake of c?.waiters ?? []) wake();
    }
    return ids;
  };
  const sweep = () => {
    const t = clock();
    for (const [id, at] of expiry) if (at <= t) removeTree(id);
  };
  const snapshot = (entry: Entry, withUpdates: boolean): TaskRecord =>
    structuredClone({ ...entry.record, updates: withUpdates ? entry.updates : [] });
  const descendants = (id: string): string[] => {
    const out: string[] = [];
    const queue = [id];
    while (queue.length) {
      const next = queue.shift()!;
      const entry = tasks.get(next);
      if (!entry) continue;
      out.push(next);
      queue.push(...entry.children);
    }
    return out;
  };

  const store: TaskStore = {
    create(task: NewTask) {
      sweep();
      if (tasks.has(task.task_id)) return Promise.resolve(false);
      const parent = task.parent_id === undefined ? undefined : tasks.get(task.parent_id);
      if (task.parent_id !== undefined && !parent) return Promise.resolve(false);
      const at = now();
      const record: Entry["record"] = {
        ...structuredClone(task),
        status: "in_progress",
        created_at: at,
        updated_at: at,
        seq: ++seq,
      };
      tasks.set(task.task_id, { record, updates: [], children: [] });
      parent?.children.push(task.task_id);
      fanOut(record, "spawned");
      return Promise.resolve(true);
    },
    get(taskId) {
      const entry = tasks.get(taskId);
      return Promise.resolve(entry && snapshot(entry, true));
    },
    list(query: TaskQuery): Promise<TaskPage> {
      sweep();
      const after = query.cursor === undefined ? 0 : Number(query.cursor);
      const matching = [...tasks.values()].filter((e) =>
        (query.status === undefined || e.record.status === query.status) &&
        (query.session_id === undefined || e.record.session_id === query.session_id)
      ).sort((a, b) => a.record.seq - b.record.seq);
      const page = matching.filter((e) => e.record.seq > after).slice(0, query.limit + 1);
      const more = page.length > query.limit;
      const shown = page.slice(0, query.limit);
      return Promise.resolve({
        tasks: shown.map((e) => snapshot(e, false)),
        total: matching.length,
        ...(more && { next_cursor: String(shown[shown.length - 1].record.seq) }),
      });
    },
    children(taskId) {
      const entry = tasks.get(taskId);
      const kids = (entry?.children ?? []).map((id) => tasks.get(id)).filter((e) => e !== undefined);
      return Promise.resolve(kids.map((e) => snapshot(e, false)));
    },
    step(taskId: string, step: TaskStep): Promise<StepOutcome> {
      const entry = tasks.get(taskId);
      if (!entry) return Promise.resolve({ ok: false });
      if (step.id && entry.lastStep?.run === step.id.run && entry.lastStep.n >= step.id.n) {
        return Promise.resolve({ ok: true }); // a repeat of a step already applied
      }
      const status = entry.record.status;
      if (FINAL_STATUSES.has(status) || (step.from && !step.from.includes(status))) {
        return Promise.resolve({ ok: false, status });
      }
      const r = entry.record;
      if (step.to) {
        r.status = step.to;
        if (FINAL_STATUSES.has(step.to)) scheduleExpiry(r);
      }
      if (step.result !== undefined) r.result = structuredClone(step.result);
      if (step.error !== undefined) r.error = step.error;
      if (step.input !== undefined) r.input = structuredClone(step.input);
      if (step.prompt === null) delete r.prompt;
      else if (step.prompt !== undefined) r.prompt = step.prompt;
      if (step.answer === null) delete r.answer;
      else if (step.answer !== undefined) r.answer = structuredClone(step.answer);
      r.updated_at = now();
      if (step.id) entry.lastStep = { run: step.id.run, n: step.id.n };
      if (step.update) entry.updates.push({ ...step.update });
      if (step.event) fanOut(r, step.event.kind, step.event.payload);
      return Promise.resolve({ ok: true });
    },
    cancel(taskId, cascade) {
      if (!tasks.has(taskId)) return Promise.resolve({ found: false, cancelled: [] });
      const cancelled: string[] = [];
      for (const id of cascade ? descendants(taskId) : [taskId]) {
        const r = tasks.get(id)!.record;
        if (FINAL_STATUSES.has(r.status)) continue;
        r.status = "cancelled" satisfies TaskStatus;
        scheduleExpiry(r);
        r.updated_at = now();
        fanOut(r, "cancelled");
        cancelled.push(id);
      }
      return Promise.resolve({ found: true, cancelled });
    },
    remove: (taskId) => Promise.resolve(removeTree(taskId)),
    retain(ms) {
      retentionMs = Math.max(0, Math.round(ms));
    },
  };

  const events: EventLog = {
    append: (name, kind, data, maxLength) => Promise.resolve(append(name, kind, structuredClone(data), maxLength)),
    last: (name) => Promise.resolve(channels.get(name)?.seq ?? 0),
    range(name, after, limit = Infinity) {
      const c = channels.get(name);
      return Promise.resolve(c ? eventsAfter(c, after, limit) : []);
    },
    follow: (name, after, signal) => eachEvent(events.followBatches(name, after, signal)),
    async *followBatches(name, after, signal) {
      let last = after;
      while (!signal.aborted) {
        const c = channel(name);
        const batch = eventsAfter(c, last, Infinity);
        if (batch.length === 0) {
          await new Promise<void>((resolve) => {
            const wake = () => {
              signal.removeEventListener("abort", wake);
              c.waiters.delete(wake);
              resolve();
            };
            c.waiters.add(wake);
            signal.addEventListener("abort", wake, { once: true });
          });
          continue;
        }
        last = batch[batch.length - 1].id;
        yield batch;
      }
    },
  };
  return { tasks: store, events, queue: createMemoryQueue(options.now ?? Date.now), close: () => Promise.resolve() };
}

/** The events above `after`, found by binary search (ids only grow). */
function eventsAfter(c: Channel, after: number, limit: number): StoredEvent[] {
  let lo = 0, hi = c.events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (c.events[mid].id <= after) lo = mid + 1;
    else hi = mid;
  }
  return c.events.slice(lo, Number.isFinite(limit) ? lo + limit : undefined);
}

/** The memory twin of the Redis work queue (one process, so a lease only runs out in tests). */
function createMemoryQueue(now: () => number): WorkQueue {
  interface Entry {
    readonly id: string;
    readonly taskId: string;
    readonly lane: string;
    readonly attempt: number;
    owner?: string;
    idleSince: number;
  }
  // One array for every lane, oldest first: each lane's entries keep their order in it.
  const entries: Entry[] = [];
  let seq = 0;
  const find = (id: string) => entries.findIndex((e) => e.id === id);
  return {
    push(taskId, attempt = 1, lane = DEFAULT_LANE) {
      entries.push({ id: `${lane}/0-${++seq}`, taskId, lane, attempt, idleSince: now() });
      return Promise.resolve();
    },
    take(consumer, leaseMs, lanes = [DEFAULT_LANE]) {
      const t = now();
      const first = (match: (e: Entry) => boolean): Entry | undefined => {
        for (const lane of lanes) {
          const entry = entries.find((e) => e.lane === lane && match(e));
          if (entry) return entry;
        }
        return undefined;
      };
      const stale = first((e) => e.owner !== undefined && t - e.idleSince >= leaseMs);
      const entry = stale ?? first((e) => e.owner === undefined);
      if (!entry) return Promise.resolve(undefined);
      entry.owner = consumer;
      entry.idleSince = t;
      const job: Job = {
        id: entry.id,
        taskId: entry.taskId,
        lane: entry.lane,
        attempt: entry.attempt,
        reclaimed: stale !== undefined,
      };
      return Promise.resolve(job);
    },
    renew(consumer, jobId) {
      const entry = entries[find(jobId)];
      if (entry?.owner === consumer) entry.idleSince = now();
      return Promise.resolve();
    },
    ack(jobId) {
      const i = find(jobId);
      if (i !== -1) entries.splice(i, 1);
      return Promise.resolve();
    },
    requeue(jobId, taskId, attempt) {
      const i = find(jobId);
      if (i === -1) return Promise.resolve(); // a repeat: the next attempt is queued already
      const [{ lane }] = entries.splice(i, 1);
      entries.push({ id: `${lane}/0-${++seq}`, taskId, lane, attempt, idleSince: now() });
      return Promise.resolve();
    },
    release(_consumer, jobId) {
      const entry = entries[find(jobId)];
      if (entry) entry.idleSince = -Infinity;
      return Promise.resolve();
    },
  };
}
