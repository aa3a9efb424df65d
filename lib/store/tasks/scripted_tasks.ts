import {
  type ListedTask,
  type NewTask,
  SHARED_CHANNEL_CAP,
  type StepOutcome,
  type TaskPage,
  type TaskQuery,
  type TaskRecord,
  type TaskStatus,
  type TaskStep,
  type TaskStore,
  type TaskUpdate,
} from "../../task_model/ports.ts";
import {
  CANCEL_LUA,
  CHILDREN_LUA,
  CREATE_LUA,
  GET_LUA,
  LIST_LUA,
  REMOVE_LUA,
  STEP_LUA,
  USAGE_LUA,
} from "./task_scripts.ts";
import { queueName } from "./layout.ts";
import type { Partitions } from "./partitions.ts";

/**
 * The `tasks` port over a Redis-speaking host, with the scripts of `task_scripts.ts`, each run
 * in its tree's partition (`partitions.ts`). A listing reads every partition's index (one script
 * each, at once) and merges them by creation order.
 *
 * @example
 * ```ts ignore
 * const tasks = createScriptedTaskStore(partitions);
 * await tasks.create({ task_id: "t1", kind: "demo", session_id: "s1", metadata: {}, input: {} });
 * ```
 */
export function createScriptedTaskStore(
  partitions: Partitions,
  options: { now?: () => number; prefix?: string } = {},
): TaskStore {
  const now = () => new Date((options.now ?? Date.now)()).toISOString();
  let retentionMs = 0;
  let shared = "session,global";
  const { layout, cluster } = partitions;
  const write = (b: number, script: string, args: string[]) =>
    partitions.write(b, script, [now(), String(SHARED_CHANNEL_CAP), String(retentionMs), shared, ...args]);
  const all = Array.from({ length: layout.partitions }, (_, b) => b);

  const tasks: TaskStore = {
    async create(task: NewTask) {
      // A root in its id's partition (so an id is in one place), which for the service's ids
      // (`newRootId`) is its session's; a child in its root's.
      const b = task.parent_id === undefined
        ? layout.rootPartition(task.task_id)
        : await partitions.partitionOf(task.parent_id);
      if (b === undefined) return false; // no such parent
      // A task outside its session's partition (a caller's own id, or a child in another session): its session's events are relayed.
      const sessionAway = layout.sessionPartition(task.session_id) !== b;
      const reply = await write(b, CREATE_LUA, [
        task.task_id,
        task.kind,
        task.session_id,
        JSON.stringify(task.metadata),
        JSON.stringify(task.input ?? null),
        task.parent_id ?? "",
        task.spawn_key ?? "",
        cluster ? "1" : "", // a cluster's tasks are numbered by creation time (see CREATE_LUA)
        sessionAway ? "1" : "",
        task.lane === undefined ? "" : queueName(task.lane),
        task.trace?.traceparent ?? "",
        task.trace?.tracestate ?? "",
      ]);
      if (Number(reply) !== 1) return false;
      partitions.remember(task.task_id, b);
      return true;
    },
    async get(taskId) {
      const b = await partitions.partitionOf(taskId);
      if (b === undefined) return undefined;
      const reply = await partitions.in(b, GET_LUA, [taskId]) as [string[], string[]] | [];
      if (reply.length === 0) return undefined;
      return toRecord(reply[0], reply[1].map((u) => JSON.parse(u) as TaskUpdate));
    },
    async list(query): Promise<TaskPage> {
      const desc = query.order === "desc";
      const after = query.cursor === undefined ? undefined : parseCursor(query.cursor, cluster);
      // Each partition's page after the cursor (one more than asked), merged by creation order: the first
      // `limit` of all. Partitions the order puts after the cursor's also list tasks with its seq (a tie of clocks).
      const pages = await Promise.all(all.map((b) => {
        const tie = after?.b !== undefined && (desc ? b < after.b : b > after.b);
        const bound = after === undefined ? "" : `${tie ? "" : "("}${after.seq}`;
        return partitions.in(b, LIST_LUA, [indexName(query), desc ? "desc" : "asc", bound, String(query.limit)]);
      })) as [number, ...(string[] | number)[]][];
      const total = pages.reduce((sum, [count]) => sum + Number(count), 0);
      const records = pages.flatMap(([, ...rows], b) => listed(rows).map((task) => ({ task, b })))
        .sort((x, y) => (x.task.seq - y.task.seq || x.b - y.b) * (desc ? -1 : 1));
      const shown = records.slice(0, query.limit);
      const last = shown[shown.length - 1];
      return {
        tasks: shown.map(({ task }) => task),
        total,
        ...(records.length > query.limit && {
          next_cursor: cursorAfter(last.task.seq, last.b, cluster),
        }),
      };
    },
    async children(taskId) {
      const b = await partitions.partitionOf(taskId);
      if (b === undefined) return [];
      const hashes = await partitions.in(b, CHILDREN_LUA, [taskId]) as string[][];
      return hashes.map((h) => toRecord(h, []));
    },
    async step(taskId: string, step: TaskStep): Promise<StepOutcome> {
      const b = await partitions.partitionOf(taskId);
      if (b === undefined) return { ok: false };
      const fields: string[] = [];
      if (step.result !== undefined) fields.push("result", JSON.stringify(step.result));
      if (step.error !== undefined) fields.push("error", step.error);
      if (step.input !== undefined) fields.push("input", JSON.stringify(step.input));
      if (step.prompt !== undefined) fields.push("prompt", step.prompt ?? "");
      if (step.answer !== undefined) fields.push("answer", step.answer === null ? "" : JSON.stringify(step.answer));
      const reply = await write(b, STEP_LUA, [
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
      const b = await partitions.partitionOf(taskId);
      if (b === undefined) return { found: false, cancelled: [] };
      const [found, ...cancelled] = await write(b, CANCEL_LUA, [taskId, cascade ? "1" : "0"]) as [number, ...string[]];
      return { found: Number(found) === 1, cancelled: cancelled.map(String) };
    },
    async remove(taskId) {
      const b = await partitions.partitionOf(taskId);
      if (b === undefined) return [];
      const removed = (await write(b, REMOVE_LUA, [taskId]) as string[]).map(String);
      partitions.forget(removed);
      return removed;
    },
    async usage() {
      const counts = await Promise.all(all.map((b) => partitions.in(b, USAGE_LUA, []))) as number[][];
      const sum = (i: number) => counts.reduce((total, c) => total + Number(c[i]), 0);
      return { live: sum(0), stored: sum(1), events: sum(2) };
    },
    retain(ms) {
      retentionMs = Math.max(0, Math.round(ms));
    },
    newRootId: (sessionId) => layout.newRootId(sessionId),
    shareEvents(channels) {
      shared = [channels.session && "session", channels.global && "global", channels.hooks && "hooks"]
        .filter(Boolean).join(",");
    },
  };
  return tasks;
}

/** The sorted set that lists what `query` asks for (see `task_scripts.ts`). */
function indexName(query: TaskQuery): string {
  const scope = query.roots ? "idx:roots:" : "idx:";
  const status = query.status === undefined ? "" : `status:${query.status}`;
  if (query.session_id === undefined) return scope + (status || "all");
  return `${scope}session:${query.session_id}${status && `:${status}`}`;
}

/**
 * The list cursor after a task: its seq; on a cluster, when the seq is a clock reading (which partitions can share),
 * followed by its partition in two digits. (A seq of a cluster's first counter is unique, and shorter.)
 */
export function cursorAfter(seq: number, b: number, cluster: boolean): string {
  return cluster && seq >= CLOCK_SEQS ? `${seq}${String(b).padStart(2, "0")}` : String(seq);
}

/** A cursor from {@link cursorAfter}: the seq, and the partition when it names one. */
export function parseCursor(cursor: string, cluster: boolean): { seq: string; b?: number } {
  if (!cluster || cursor.length <= String(CLOCK_SEQS).length) return { seq: cursor };
  return { seq: cursor.slice(0, -2), b: Number(cursor.slice(-2)) };
}

/** The smallest clock reading a cluster numbers tasks with (µs: 2001-09-09); its first counter stayed far below. */
const CLOCK_SEQS = 1e15;

/** `LIST_LUA`'s rows, a hash then its children count, as tasks (a hash emptied meanwhile is skipped). */
function listed(rows: (string[] | number)[]): ListedTask[] {
  const out: ListedTask[] = [];
  for (let i = 0; i < rows.length; i += 2) {
    const hash = rows[i] as string[];
    if (hash.length > 0) out.push({ ...toRecord(hash, []), children: Number(rows[i + 1]) });
  }
  return out;
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
    ...(h.traceparent !== undefined && {
      trace: { traceparent: h.traceparent, ...(h.tracestate !== undefined && { tracestate: h.tracestate }) },
    }),
    created_at: h.created_at,
    updated_at: h.updated_at,
    seq: Number(h.seq),
    updates,
  };
}
