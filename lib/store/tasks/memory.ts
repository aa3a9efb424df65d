import type { TaskPorts } from "../../task_model/ports.ts";
import { createMemoryEventLog } from "./memory_events.ts";
import { createMemoryQueue } from "./memory_queue.ts";
import { createMemoryTaskStore } from "./memory_tasks.ts";

/**
 * The task ports in memory: the task store (`memory_tasks.ts`), its event log
 * (`memory_events.ts`) and the work queue (`memory_queue.ts`). Each step is atomic in one
 * process, and followers wake on append.
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
  const events = createMemoryEventLog();
  const queue = createMemoryQueue(options.now ?? Date.now);
  return {
    tasks: createMemoryTaskStore(events, queue, options),
    events,
    queue,
    close: () => Promise.resolve(events.close()),
  };
}
