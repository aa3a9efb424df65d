import {
  eventData,
  FINAL_STATUSES,
  GLOBAL_CHANNEL,
  HOOK_KINDS,
  HOOKS_CHANNEL,
  type NewTask,
  sessionChannel,
  SHARED_CHANNEL_CAP,
  type SharedChannels,
  type StepOutcome,
  SUBTASK_KINDS,
  taskChannel,
  type TaskPage,
  type TaskQuery,
  type TaskRecord,
  type TaskStatus,
  type TaskStep,
  type TaskStore,
  type TaskUpdate,
  type WorkQueue,
} from "../../task_model/ports.ts";
import type { MemoryEventLog } from "./memory_events.ts";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
interface Entry {
  record: Mutable<Omit<TaskRecord, "updates">>;
  readonly updates: TaskUpdate[];
  readonly children: string[];
  /** The last applied step with an id (`step_run`, `step_n` on Redis). */
  lastStep?: { readonly run: string; readonly n: number };
}

/**
 * The `tasks` port in memory, the twin of the Redis task scripts: each step is one synchronous
 * block, so it is atomic in one process; its events go to `events`, and a task created with a
 * lane to `queue`.
 *
 * @example
 * ```ts
 * import { createMemoryEventLog } from "./memory_events.ts";
 * import { createMemoryQueue } from "./memory_queue.ts";
 * const tasks = createMemoryTaskStore(createMemoryEventLog(), createMemoryQueue(Date.now));
 * await tasks.create({ task_id: "t1", kind: "demo", session_id: "s1", metadata: {}, input: {} });
 * ```
 */
export function createMemoryTaskStore(
  events: MemoryEventLog,
  queue: WorkQueue,
  options: { now?: () => number } = {},
): TaskStore {
  const now = () => new Date((options.now ?? Date.now)()).toISOString();
  const append = events.appendOwned;
  const tasks = new Map<string, Entry>();
  let seq = 0;
  let retentionMs = 0;
  let shared: SharedChannels = { session: true, global: true };
  /** When finished roots go, by id: the twin of the `expiry` sorted set. */
  const expiry = new Map<string, number>();
  /** When the session and global channels go, in that order: the twin of their PEXPIRE. */
  const sharedExpiry = new Map<string, number>();
  const clock = options.now ?? Date.now;
  /** Events on task channels: the twin of the `events` counter on Redis. */
  let taskEvents = 0;

  const fanOut = (record: Entry["record"], kind: string, payload: Record<string, unknown> = {}) => {
    if (kind !== "spawned") {
      const data = structuredClone(eventData(record.task_id, payload)); // one copy, shared by the three channels
      append(taskChannel(record.task_id), kind, data);
      taskEvents++;
      const channels = [
        shared.session && sessionChannel(record.session_id),
        shared.global && GLOBAL_CHANNEL,
        shared.hooks && HOOK_KINDS.has(kind) && HOOKS_CHANNEL,
      ];
      for (const channel of channels) {
        if (!channel) continue;
        append(channel, kind, data, SHARED_CHANNEL_CAP);
        if (retentionMs === 0) continue;
        sharedExpiry.delete(channel); // to the end: the map stays in the order they go
        sharedExpiry.set(channel, clock() + retentionMs);
      }
    }
    if (record.parent_id && SUBTASK_KINDS.has(kind)) {
      const sub = { subtask_id: record.task_id, spawn_key: record.spawn_key, ...payload };
      append(taskChannel(record.parent_id), `subtask_${kind}`, structuredClone(eventData(record.parent_id, sub)));
      taskEvents++;
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
      taskEvents -= events.drop(taskChannel(id));
    }
    return ids;
  };
  const sweep = () => {
    const t = clock();
    for (const [id, at] of expiry) if (at <= t) removeTree(id);
    for (const [name, at] of sharedExpiry) {
      if (at > t) break;
      sharedExpiry.delete(name);
      events.drop(name);
    }
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
    create({ lane, ...task }: NewTask) {
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
      if (lane !== undefined) void queue.push(task.task_id, 1, lane); // the memory queue's push is synchronous
      return Promise.resolve(true);
    },
    get(taskId) {
      const entry = tasks.get(taskId);
      return Promise.resolve(entry && snapshot(entry, true));
    },
    list(query: TaskQuery): Promise<TaskPage> {
      sweep();
      const desc = query.order === "desc";
      const after = query.cursor === undefined ? undefined : Number(query.cursor);
      const matching = [...tasks.values()].filter((e) =>
        (query.status === undefined || e.record.status === query.status) &&
        (query.session_id === undefined || e.record.session_id === query.session_id) &&
        (!query.roots || e.record.parent_id === undefined)
      ).sort((a, b) => desc ? b.record.seq - a.record.seq : a.record.seq - b.record.seq);
      const page = matching.filter((e) => after === undefined || (desc ? e.record.seq < after : e.record.seq > after))
        .slice(0, query.limit + 1);
      const more = page.length > query.limit;
      const shown = page.slice(0, query.limit);
      return Promise.resolve({
        tasks: shown.map((e) => ({ ...snapshot(e, false), children: e.children.length })),
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
    usage() {
      sweep();
      let live = 0;
      for (const { record } of tasks.values()) if (!FINAL_STATUSES.has(record.status)) live++;
      return Promise.resolve({ live, stored: tasks.size, events: taskEvents });
    },
    retain(ms) {
      retentionMs = Math.max(0, Math.round(ms));
    },
    shareEvents(channels) {
      shared = { ...channels };
    },
    newRootId: () => crypto.randomUUID(),
  };
  return store;
}
