import type { z } from "zod";
import { StoreCtlError } from "../errors/mod.ts";
import type { TaskFootprint } from "./limits.ts";

/** What a running task can do; every call is one atomic store step with its event. */
export interface TaskContext {
  readonly taskId: string;
  readonly sessionId: string;
  /** Aborted when the task is cancelled (from any process). */
  readonly signal: AbortSignal;
  /** Appends an update (`update_type` defaults to `info`) and emits `update`. */
  update(message: string, type?: string): Promise<void>;
  /** Emits a `token` event (a generated text fragment). */
  token(text: string): Promise<void>;
  /**
   * Starts a child task; `key` (its `spawn_key`) defaults to `child-<n>` in spawn order.
   * Await the returned handle for the child's result; it rejects with a {@link TaskFailedError}
   * when the child fails or is cancelled.
   */
  spawn(kind: string, input: unknown, options?: { key?: string }): SpawnedTask;
  /** Moves the task to `input_required` with `prompt` and resolves with the answer given. */
  requestInput(prompt: string): Promise<unknown>;
}

/** A child task: its id at once, its result when awaited. */
export interface SpawnedTask extends PromiseLike<Record<string, unknown>> {
  readonly taskId: string;
  readonly spawnKey: string;
}

/** A kind of task: its input schema and what it does. */
export interface TaskDefinition<I = unknown> {
  readonly kind: string;
  readonly input: z.ZodType<I>;
  /**
   * The lane its root tasks queue and run in, with a concurrency limit of its own (pipelines use
   * `pipelines`), so they never wait behind the tasks of another lane. Default `tasks`.
   */
  readonly lane?: string;
  /**
   * Runs the task. The return value becomes `result` (a string `s` becomes `{answer: s}`);
   * a throw becomes `failed` with the error's message.
   */
  run(ctx: TaskContext, input: I): Promise<unknown>;
  /**
   * What the task keeps of its input once `done` (all of it when absent): a summary where the
   * input now lives elsewhere, as the documents a pipeline stored, so it is not kept twice.
   */
  inputWhenDone?(input: I): unknown;
  /**
   * The most a request of this kind will store, from its input: checked against the tree limits
   * before it is stored (a 422 beyond them) and against the tenant's quotas. Without it, a request
   * counts as one task and one event, and only the run's budget holds it to the limits.
   */
  footprint?(input: I): TaskFootprint;
}

/**
 * Declares a kind of task.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * const echo = defineTask({
 *   kind: "echo",
 *   input: z.object({ text: z.string() }),
 *   async run(ctx, input) {
 *     await ctx.token(input.text);
 *     return input.text; // result: { answer: input.text }
 *   },
 * });
 * ```
 */
export function defineTask<S extends z.ZodType>(definition: {
  kind: string;
  input: S;
  lane?: string;
  run(ctx: TaskContext, input: z.output<S>): Promise<unknown>;
  inputWhenDone?(input: z.output<S>): unknown;
  footprint?(input: z.output<S>): TaskFootprint;
}): TaskDefinition {
  return definition as unknown as TaskDefinition;
}

/** The result object stored for a task's return value. */
export function toResult(value: unknown): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  return { answer: typeof value === "string" ? value : JSON.stringify(value) };
}

/** One invalid field of a task request. */
export interface TaskFieldError {
  readonly field: string;
  readonly message: string;
}

/** A task request with an unknown kind or an input its schema refuses. */
export class TaskInputError extends StoreCtlError {
  readonly errors: readonly TaskFieldError[];
  constructor(message: string, errors: readonly TaskFieldError[]) {
    super("validation", message, { details: { errors } });
    this.name = "TaskInputError";
    this.errors = errors;
  }
}

/** A child task that failed or was cancelled, as its parent sees it. */
export class TaskFailedError extends Error {
  readonly taskId: string;
  readonly status: "failed" | "cancelled";
  constructor(taskId: string, status: "failed" | "cancelled", message: string) {
    super(message);
    this.name = "TaskFailedError";
    this.taskId = taskId;
    this.status = status;
  }
}

/** The task was cancelled (or removed) while it ran: its steps are refused. */
export class TaskCancelledError extends Error {
  constructor(taskId: string) {
    super(`Task ${taskId} was cancelled`);
    this.name = "TaskCancelledError";
  }
}
