import type { TaskStep, TaskStore } from "../store/mod.ts";
import { type SpawnedTask, TaskCancelledError, type TaskContext, TaskFailedError } from "./define.ts";
import type { Send } from "./execution.ts";
import type { TaskKinds } from "./kinds.ts";
import type { TaskBudget } from "./limits.ts";
import type { TaskRecord } from "../task_model/model.ts";
import type { StoreRetry } from "./store_retry.ts";
import { activeTrace } from "../tracing/mod.ts";

/** What a running task's context works with. */
export interface ContextDeps {
  readonly tasks: TaskStore;
  readonly retry: StoreRetry;
  readonly newId: () => string;
  readonly kinds: TaskKinds;
  /** Runs a spawned child to a final state (in its parent's slot), on its share of the tree's budget. */
  execute(taskId: string, budget: TaskBudget): Promise<boolean>;
  /** Wakes a task waiting for input, by task id (the runner calls it when an answer arrives). */
  readonly inputWaiters: Map<string, () => void>;
}

/**
 * The {@link TaskContext} of one run of a task: its steps go through `send` (one at a time,
 * each applied once); a refused step aborts `controller` and throws a {@link TaskCancelledError}.
 * Its events and children are counted against `budget`, which throws past a tree limit.
 */
export function createTaskContext(
  record: TaskRecord,
  controller: AbortController,
  send: Send,
  budget: TaskBudget,
  deps: ContextDeps,
): TaskContext {
  const { tasks, retry, newId, kinds, inputWaiters } = deps;
  const taskId = record.task_id;
  let spawned = 0;
  const step = async (s: TaskStep) => {
    if (controller.signal.aborted) throw new TaskCancelledError(taskId);
    if (s.event) budget.charge(1);
    const outcome = await send(s, controller.signal);
    if (!outcome.ok) {
      controller.abort();
      throw new TaskCancelledError(taskId);
    }
  };
  return {
    taskId,
    sessionId: record.session_id,
    signal: controller.signal,
    update: (message, type = "info") =>
      step({
        update: { message, update_type: type },
        event: { kind: "update", payload: { message, update_type: type } },
      }),
    token: (text) => step({ event: { kind: "token", payload: { message: text } } }),
    spawn(kind, input, spawnOptions = {}): SpawnedTask {
      const spawnKey = spawnOptions.key ?? `child-${spawned}`;
      const childId = newId();
      const share = budget.spawn(childId);
      spawned++;
      const result = (async () => {
        kinds.validate(kind, input);
        if (controller.signal.aborted) throw new TaskCancelledError(taskId);
        const child = {
          task_id: childId,
          kind,
          session_id: record.session_id,
          metadata: { message: `${kind} ${spawnKey} of ${taskId}` },
          input: input ?? {},
          parent_id: taskId,
          spawn_key: spawnKey,
          trace: activeTrace(), // the parent's run: the child's is a span under it
        };
        // Refused when the parent is gone, or when a repeated create finds the child its lost reply made.
        const created = await retry(() => tasks.create(child), controller.signal) ||
          (await retry(() => tasks.get(childId), controller.signal))?.parent_id === taskId;
        if (!created) throw new TaskCancelledError(taskId);
        await deps.execute(childId, share);
        const done = await retry(() => tasks.get(childId));
        if (done?.status === "done") return done.result ?? {};
        const status = done?.status === "failed" ? "failed" : "cancelled";
        const why = status === "failed" ? `failed: ${done?.error}` : "was cancelled";
        throw new TaskFailedError(childId, status, `Sub-task ${spawnKey} (${childId}) ${why}`);
      })();
      result.catch(() => {}); // a child nobody awaits must not be an unhandled rejection
      return { taskId: childId, spawnKey, then: (ok, fail) => result.then(ok, fail) };
    },
    async requestInput(prompt) {
      await step({
        to: "input_required",
        from: ["in_progress"],
        prompt,
        event: { kind: "input_required", payload: { prompt } },
      });
      for (;;) {
        let wake = () => {};
        const woken = new Promise<void>((resolve) => wake = resolve);
        inputWaiters.set(taskId, wake);
        controller.signal.addEventListener("abort", wake, { once: true });
        const timer = setTimeout(wake, 1_000); // a missed control event costs at most a second
        try {
          const now = await retry(() => tasks.get(taskId), controller.signal);
          if (!now || controller.signal.aborted) throw new TaskCancelledError(taskId);
          if (now.status === "in_progress") return now.answer;
          if (now.status !== "input_required") throw new TaskCancelledError(taskId);
          await woken;
        } finally {
          clearTimeout(timer);
          controller.signal.removeEventListener("abort", wake);
          inputWaiters.delete(taskId);
        }
      }
    },
  };
}
