/**
 * Agent tasks: the model (states, records, events and channels, from `lib/task_model`),
 * definitions (`defineTask`), the in-process runner that runs them over the store's
 * `tasks`, `events` and `queue` ports (`runner.ts` composes `queue_worker.ts`: lanes, leases and
 * take-overs; `execution.ts`: runs and their numbered steps; `context.ts`: what a running task
 * can do), and the built-in `demo` kind.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from "../store/mod.ts";
 * import { createTaskRunner, demoTask } from "./mod.ts";
 * const store = createMemoryStore();
 * const runner = createTaskRunner({ store, definitions: [demoTask], concurrency: 4 });
 * const task = await runner.submit({ kind: "demo", input: { tokens: ["Hi"], children: 2 } });
 * for await (const event of store.events.follow(`task:${task.task_id}`, 0, AbortSignal.timeout(5_000))) {
 *   if (event.kind === "done") break;
 * }
 * ```
 *
 * @module
 */
export {
  defineTask,
  type SpawnedTask,
  TaskCancelledError,
  type TaskContext,
  type TaskDefinition,
  TaskFailedError,
  type TaskFieldError,
  TaskInputError,
  toResult,
} from "./define.ts";
export { demoFootprint, DemoInput, demoTask } from "./demo.ts";
export {
  checkFootprint,
  DEFAULT_TASK_LIMITS,
  type TaskBudget,
  type TaskFootprint,
  type TaskLimits,
  TaskQuotaError,
  treeBudget,
  UNKNOWN_FOOTPRINT,
} from "./limits.ts";
export { type QuotaGate, quotaGate } from "./quota.ts";
export { DEFAULT_CONCURRENCY, DEFAULT_LANE_CONCURRENCY, type LanePlan, planLanes } from "./lanes.ts";
export {
  CONTROL_CHANNEL,
  EVENT_KINDS,
  eventData,
  FINAL_EVENT_KINDS,
  FINAL_STATUSES,
  GLOBAL_CHANNEL,
  HOOK_KINDS,
  HOOKS_CHANNEL,
  sessionChannel,
  SHARED_CHANNEL_CAP,
  type StoredEvent,
  SUBTASK_KINDS,
  TASK_STATUSES,
  taskChannel,
  type TaskRecord,
  type TaskStatus,
  type TaskUpdate,
} from "../task_model/mod.ts";
export { createTaskRunner, type SubmitRequest, type TaskRunner, type TaskRunnerOptions } from "./runner.ts";
export type { TaskObserver } from "./execution.ts";
