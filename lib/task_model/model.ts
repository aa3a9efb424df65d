/**
 * The task model: states and the record of a task, as the API shows them and the stores keep them.
 *
 * @module
 */

/** A task's state; `done`, `failed` and `cancelled` are final: nothing leaves them. */
export type TaskStatus = "in_progress" | "done" | "failed" | "cancelled" | "input_required";

/** Every task state, in the order the API documents them. */
export const TASK_STATUSES: readonly TaskStatus[] = ["in_progress", "input_required", "done", "failed", "cancelled"];

/** The states nothing leaves. */
export const FINAL_STATUSES: ReadonlySet<TaskStatus> = new Set<TaskStatus>(["done", "failed", "cancelled"]);

/** One progress message of a task, as `GET /tasks/{id}` lists them. */
export interface TaskUpdate {
  readonly message: string;
  readonly update_type: string;
}

/** A W3C trace context, as its `traceparent` and `tracestate` headers carry it. */
export interface TaskTrace {
  readonly traceparent: string;
  readonly tracestate?: string;
}

/** A task as stored. */
export interface TaskRecord {
  readonly task_id: string;
  readonly kind: string;
  readonly session_id: string;
  readonly status: TaskStatus;
  readonly metadata: Record<string, unknown>;
  readonly input: unknown;
  readonly result?: Record<string, unknown>;
  readonly error?: string;
  /** The question of an `input_required` task. */
  readonly prompt?: string;
  /** The answer given to the last question, until the task takes it. */
  readonly answer?: unknown;
  readonly parent_id?: string;
  readonly spawn_key?: string;
  /** The W3C trace context of what created it: its run and its children are spans of that trace. */
  readonly trace?: TaskTrace;
  readonly created_at: string;
  readonly updated_at: string;
  /** Creation order: unique per store, or per partition of a cluster (a clock reading there); list cursors are built from it. */
  readonly seq: number;
  /** Only `get()` fills it; lists leave it empty. */
  readonly updates: readonly TaskUpdate[];
}
