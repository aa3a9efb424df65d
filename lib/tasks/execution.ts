import type { Job, StepOutcome, TaskStep, TaskStore } from "../store/mod.ts";
import { createTaskContext } from "./context.ts";
import { TaskCancelledError, toResult } from "./define.ts";
import type { TaskKinds } from "./kinds.ts";
import { type TaskBudget, type TaskLimits, treeBudget } from "./limits.ts";
import { FINAL_STATUSES, type TaskRecord } from "../task_model/model.ts";
import type { StoreRetry } from "./store_retry.ts";
import { failed, inSpan, type Span, SpanKind } from "../tracing/mod.ts";

/** Sends one step of a run of a task (see {@link createExecution}'s `stepper`). */
export type Send = (step: TaskStep, signal?: AbortSignal) => Promise<StepOutcome>;

/** What runs tasks in this process works with. */
/** What a runner tells of the tasks it submits and runs: root and child tasks alike. */
export interface TaskObserver {
  submitted(kind: string): void;
  /** A task of `kind` starts (1) or stops (-1) running here, however it ends. */
  running(kind: string, change: 1 | -1): void;
  /** A task run here ended: `done`, or `failed` (a cancelled one is stopped, not ended here). */
  finished(kind: string, outcome: "done" | "failed"): void;
  /** A job of `lane` was taken over from a runner whose lease ran out (or that handed it back). */
  takenOver(lane: string): void;
  /** A store call that failed for a reason that may pass is made again. */
  storeRetried(): void;
}

export interface ExecutionDeps {
  readonly tasks: TaskStore;
  readonly retry: StoreRetry;
  readonly newId: () => string;
  readonly log: (line: string) => void;
  readonly kinds: TaskKinds;
  /** What one run of a tree may use (the tree limits). */
  readonly limits: TaskLimits;
  /** The tasks running here, by id: a cancel aborts them. */
  readonly local: Map<string, AbortController>;
  /** Tasks waiting for input here, by id. */
  readonly inputWaiters: Map<string, () => void>;
  /** True once the runner closes: a task taken meanwhile is handed back, not started. */
  isClosed(): boolean;
  readonly observer?: TaskObserver;
}

/** Runs tasks: roots (a new attempt cleans up after the last), and children within their root. */
export interface Execution {
  stepper(taskId: string): Send;
  /** Runs a root task; false when it stopped without finishing (cancelled, or handed back). */
  startRoot(job: Job): Promise<boolean>;
  /** Runs a stored task to a final state; false when it stopped without one (cancelled, handed back). */
  execute(taskId: string, budget: TaskBudget, send?: Send): Promise<boolean>;
}

/** The execution of tasks over the `tasks` port. */
export function createExecution(deps: ExecutionDeps): Execution {
  const { tasks, retry, newId, log, kinds, local } = deps;
  /**
   * Sends the steps of one run of a task one at a time, numbered (so a step repeated after a lost
   * reply applies once, see `TaskStep.id`), each repeated while the store fails transiently.
   */
  const stepper = (taskId: string): Send => {
    const run = newId();
    let n = 0;
    let tail: Promise<unknown> = Promise.resolve();
    return (step: TaskStep, signal?: AbortSignal): Promise<StepOutcome> => {
      const sent = tail.then(() => {
        const id = { run, n: ++n };
        return retry(() => tasks.step(taskId, { ...step, id }), signal);
      });
      tail = sent.catch(() => {});
      return sent;
    };
  };

  /** Runs a root task; false when it stopped without finishing (cancelled, or handed back). */
  const startRoot = async (job: Job): Promise<boolean> => {
    const record = await retry(() => tasks.get(job.taskId));
    if (!record || FINAL_STATUSES.has(record.status)) return true;
    const send = stepper(job.taskId);
    if (job.attempt > 1) {
      // The last attempt's children died with its runner: this attempt spawns its own.
      for (const child of await retry(() => tasks.children(job.taskId))) {
        await retry(() => tasks.remove(child.task_id));
      }
      if (record.status === "input_required") {
        await send({ to: "in_progress", from: ["input_required"], prompt: null });
      }
      const message = `restarted (attempt ${job.attempt}): the runner that had it stopped`;
      await send({
        update: { message, update_type: "retry" },
        event: { kind: "update", payload: { message, update_type: "retry" } },
      });
    }
    // A first attempt starts from the record just read (a retry's steps changed it: read it again).
    return await execute(job.taskId, treeBudget(deps.limits, job.taskId), send, job.attempt > 1 ? undefined : record);
  };

  /** Runs a stored task to a final state; false when it stopped without one (cancelled, handed back). */
  const execute = async (
    taskId: string,
    budget: TaskBudget,
    send: Send = stepper(taskId),
    read?: TaskRecord,
  ): Promise<boolean> => {
    const record = read ?? await retry(() => tasks.get(taskId));
    if (!record || record.status !== "in_progress") return true;
    // close() has already stopped the tasks it runs: one taken meanwhile is handed back, not started.
    if (deps.isClosed()) return false;
    // A span of the trace that created the task, whichever process that was.
    const span = {
      kind: record.parent_id === undefined ? SpanKind.CONSUMER : SpanKind.INTERNAL,
      attributes: { "storectl.task.id": taskId, "storectl.task.kind": record.kind },
      parent: record.trace,
    };
    return await inSpan(`task ${record.kind}`, span, (traced) => run(record, budget, send, traced));
  };

  /** Runs `record`'s task here; `span`, when tracing, says how it ended. */
  const run = async (record: TaskRecord, budget: TaskBudget, send: Send, span?: Span): Promise<boolean> => {
    const taskId = record.task_id;
    const controller = new AbortController();
    local.set(taskId, controller);
    deps.observer?.running(record.kind, 1);
    try {
      const definition = kinds.validate(record.kind, record.input);
      const input = definition.input.parse(record.input ?? {});
      const context = createTaskContext(record, controller, send, budget, contextDeps);
      const value = await definition.run(context, input);
      if (controller.signal.aborted) return stopped(span);
      const result = toResult(value);
      await send({
        to: "done",
        result,
        input: definition.inputWhenDone?.(input),
        event: { kind: "done", payload: { result } },
      }, controller.signal);
      deps.observer?.finished(record.kind, "done");
      span?.setAttribute("storectl.task.outcome", "done");
      return true;
    } catch (error) {
      if (controller.signal.aborted || error instanceof TaskCancelledError) return stopped(span);
      const message = error instanceof Error ? error.message : String(error);
      if (span) failed(span, error);
      await send({ to: "failed", error: message, event: { kind: "failed", payload: { error: message } } })
        .catch((e) => log(`task ${taskId}: cannot record its failure (${message}): ${(e as Error).message}`));
      deps.observer?.finished(record.kind, "failed");
      return true;
    } finally {
      local.delete(taskId);
      deps.observer?.running(record.kind, -1);
    }
  };

  const contextDeps = {
    tasks,
    retry,
    newId,
    kinds,
    inputWaiters: deps.inputWaiters,
    execute: (id: string, budget: TaskBudget) => execute(id, budget),
  };
  return { stepper, startRoot, execute };
}

/** A run that stopped without an end of its own: cancelled, or handed back to be run again. */
function stopped(span?: Span): false {
  span?.setAttribute("storectl.task.outcome", "stopped");
  return false;
}
