/**
 * What a webhook delivery says: `{type, timestamp, data}`, the envelope Standard Webhooks
 * recommends, with the task as `GET /tasks/{id}` shows its state and outcome.
 *
 * @module
 */
import type { StoredEvent, TaskRecord } from "../task_model/mod.ts";

/** The body of a delivery of `event` (a task's end or question) of `record`'s task. */
export function deliveryBody(event: StoredEvent, record: TaskRecord | undefined): string {
  const data = event.data;
  return JSON.stringify({
    type: `task.${event.kind}`,
    timestamp: record?.updated_at ?? new Date().toISOString(),
    data: {
      task_id: data.task_id,
      ...(record && {
        session_id: record.session_id,
        kind: record.kind,
        ...(record.parent_id !== undefined && { parent_id: record.parent_id }),
      }),
      status: event.kind, // each hook kind is the status the task took
      event_id: event.id,
      ...(data.result !== undefined && { result: data.result }),
      ...(data.error !== undefined && { error: data.error }),
      ...(data.prompt !== undefined && { prompt: data.prompt }),
    },
  });
}
