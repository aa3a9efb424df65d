/**
 * The service's tasks in MCP's words: our statuses as MCP task statuses, a task record as an MCP
 * task, and a finished task as a tool result (its answer as text, the whole result as
 * structured content, its sources among them).
 *
 * @module
 */
import type { TaskRecord, TaskStatus } from "../../lib/tasks/mod.ts";

/** Our status → the MCP task status. */
export const MCP_STATUS: Readonly<
  Record<TaskStatus, "working" | "input_required" | "completed" | "failed" | "cancelled">
> = {
  in_progress: "working",
  input_required: "input_required",
  done: "completed",
  failed: "failed",
  cancelled: "cancelled",
};

/** How long MCP clients are told to wait between polls of a working task. */
export const POLL_INTERVAL_MS = 1_000;

/** A task as MCP's `Task`: the question of an input-required one, or its error, as the status message. */
export function mcpTask(record: TaskRecord) {
  const message = record.status === "input_required"
    ? record.prompt
    : record.status === "failed"
    ? record.error
    : record.updates.at(-1)?.message;
  return {
    taskId: record.task_id,
    status: MCP_STATUS[record.status],
    ...(message !== undefined && { statusMessage: message }),
    createdAt: record.created_at,
    lastUpdatedAt: record.updated_at,
    ttl: null,
    pollInterval: POLL_INTERVAL_MS,
  };
}

/** A task that has settled as a tool result: done → its result; otherwise what it waits for or why it ended. */
export function toolResult(record: TaskRecord) {
  const about = { task_id: record.task_id, kind: record.kind, status: record.status };
  if (record.status === "done") {
    const result = record.result ?? {};
    const text = typeof result.answer === "string" ? result.answer : JSON.stringify(result);
    return { content: [{ type: "text" as const, text }], structuredContent: { ...about, result } };
  }
  const text = record.status === "input_required"
    ? `Task ${record.task_id} asks: ${record.prompt}. Answer it with the tool answer_task.`
    : record.status === "failed"
    ? `Task ${record.task_id} failed: ${record.error}`
    : `Task ${record.task_id} is ${record.status}`;
  return {
    content: [{ type: "text" as const, text }],
    structuredContent: {
      ...about,
      ...(record.prompt && { prompt: record.prompt }),
      ...(record.error && { error: record.error }),
    },
    ...((record.status === "failed" || record.status === "cancelled") && { isError: true }),
  };
}
