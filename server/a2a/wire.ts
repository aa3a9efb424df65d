/**
 * Our tasks and events in A2A 1.0's JSON form: a task is an A2A task (its id; its session is the
 * context), our statuses are A2A states, progress updates are status updates, tokens are chunks
 * appended to the `output` artifact, and the result is the final `result` artifact.
 *
 * @module
 */
import type { StoredEvent, TaskRecord, TaskStatus } from "../../lib/tasks/mod.ts";

/** A JSON object of the wire. */
export type Json = Record<string, unknown>;

/** Our status → A2A's state. */
export const STATE_OF: Readonly<Record<TaskStatus, string>> = {
  in_progress: "TASK_STATE_WORKING",
  input_required: "TASK_STATE_INPUT_REQUIRED",
  done: "TASK_STATE_COMPLETED",
  failed: "TASK_STATE_FAILED",
  cancelled: "TASK_STATE_CANCELED",
};

/** A2A's state → our status; states our tasks never take (submitted, rejected, auth-required) have none. */
export function statusOf(state: string): TaskStatus | undefined {
  return (Object.keys(STATE_OF) as TaskStatus[]).find((status) => STATE_OF[status] === state);
}

/** The artifact that tokens are appended to, chunk by chunk. */
export const OUTPUT_ARTIFACT = "output";
/** The artifact holding a finished task's result. */
export const RESULT_ARTIFACT = "result";

/** An agent's message with one text part. */
export function agentMessage(record: Pick<TaskRecord, "task_id" | "session_id">, id: string, text: string): Json {
  return {
    messageId: `${record.task_id}:${id}`,
    role: "ROLE_AGENT",
    parts: [{ text }],
    taskId: record.task_id,
    contextId: record.session_id,
  };
}

/**
 * The result as an artifact: its `answer` as text when it has one, and the whole as data when
 * it holds more than that answer.
 */
export function resultArtifact(result: Record<string, unknown>): Json {
  const answer = typeof result.answer === "string" ? result.answer : undefined;
  const onlyAnswer = answer !== undefined && Object.keys(result).length === 1;
  const parts = [...(answer === undefined ? [] : [{ text: answer }]), ...(onlyAnswer ? [] : [{ data: result }])];
  return { artifactId: RESULT_ARTIFACT, name: RESULT_ARTIFACT, parts };
}

/**
 * The message a task's status carries: its question, its error, or while it works its last
 * update (a finished task's result is its artifact; its history has the updates).
 */
function statusMessage(record: TaskRecord): Json | undefined {
  if (record.status === "input_required" && record.prompt !== undefined) {
    return agentMessage(record, "prompt", record.prompt);
  }
  if (record.status === "failed" && record.error !== undefined) return agentMessage(record, "error", record.error);
  const last = record.status === "in_progress" ? record.updates.at(-1) : undefined;
  return last && agentMessage(record, `update:${record.updates.length}`, last.message);
}

/** How much of a task to show. */
export interface TaskView {
  /** The last this many messages of the history; none: all of it. */
  readonly historyLength?: number;
  /** Whether to include artifacts (lists leave them out unless asked). */
  readonly artifacts?: boolean;
  /** The tokens streamed so far (a subscription's first frame carries them). */
  readonly output?: string;
}

/**
 * A task as A2A shows it. Its history is the input (a user message with a data part) and its
 * updates (agent messages); `metadata` has the kind, the parent and the number of sub-tasks
 * (the task-tree extension) and the task's own metadata.
 */
export function a2aTask(record: TaskRecord & { children?: number }, view: TaskView = {}): Json {
  const message = statusMessage(record);
  const artifacts = view.artifacts === false ? [] : [
    ...(view.output ? [{ artifactId: OUTPUT_ARTIFACT, name: OUTPUT_ARTIFACT, parts: [{ text: view.output }] }] : []),
    ...(record.status === "done" && record.result ? [resultArtifact(record.result)] : []),
  ];
  // The task's own messages: their task and context go without saying.
  const history = [
    { messageId: `${record.task_id}:input`, role: "ROLE_USER", parts: [{ data: record.input }] },
    ...record.updates.map((u, i) => ({
      messageId: `${record.task_id}:update:${i + 1}`,
      role: "ROLE_AGENT",
      parts: [{ text: u.message }],
    })),
  ];
  const shown = view.historyLength === undefined ? history : history.slice(history.length - view.historyLength);
  return {
    id: record.task_id,
    contextId: record.session_id,
    status: { state: STATE_OF[record.status], ...(message && { message }), timestamp: record.updated_at },
    ...(artifacts.length > 0 && { artifacts }),
    ...(view.historyLength !== 0 && { history: view.historyLength === 0 ? [] : shown }),
    metadata: {
      kind: record.kind,
      createdAt: record.created_at,
      ...(record.parent_id !== undefined && { parentId: record.parent_id }),
      ...(record.children !== undefined && { children: record.children }),
      ...(Object.keys(record.metadata).length > 0 && { task: record.metadata }),
    },
  };
}

/** The body of an A2A push notification: the task as it is, as a stream response. */
export function a2aPushBody(record: TaskRecord): string {
  return JSON.stringify({ task: a2aTask(record) });
}

/** The kinds after which an A2A stream ends: final states, and the interrupted `input_required`. */
export const STREAM_END_KINDS: ReadonlySet<string> = new Set(["done", "failed", "cancelled", "input_required"]);

/**
 * One task event as A2A stream responses (`{statusUpdate}` or `{artifactUpdate}`): none for an
 * event A2A has no word for (a token's is made by {@link streamTexts}, on the hot path).
 */
export function streamResponses(record: Pick<TaskRecord, "task_id" | "session_id">, event: StoredEvent): Json[] {
  const ids = { taskId: record.task_id, contextId: record.session_id };
  const status = (state: TaskStatus, text?: string, metadata?: Json) => ({
    statusUpdate: {
      ...ids,
      status: {
        state: STATE_OF[state],
        ...(text !== undefined && { message: agentMessage(record, `e${event.id}`, text) }),
      },
      ...(metadata && { metadata }),
    },
  });
  const data = event.data;
  switch (event.kind) {
    case "update":
      return [status("in_progress", String(data.message), { updateType: data.update_type })];
    case "input_required":
      return [status("input_required", String(data.prompt))];
    case "done": {
      const artifact = resultArtifact((data.result ?? {}) as Record<string, unknown>);
      return [{ artifactUpdate: { ...ids, artifact, lastChunk: true } }, status("done")];
    }
    case "failed":
      return [status("failed", String(data.error))];
    case "cancelled":
      return [status("cancelled")];
    default:
      if (!event.kind.startsWith("subtask_")) return [];
      return [status("in_progress", `sub-task ${data.spawn_key ?? data.subtask_id} ${event.kind.slice(8)}`, {
        subtask: { id: data.subtask_id, spawnKey: data.spawn_key, event: event.kind.slice(8) },
      })];
  }
}

/**
 * The stream responses of `record`'s events as JSON text. A token, most of a stream, is one
 * chunk of the `output` artifact written around a prefix made once per stream: the first starts
 * the artifact, the others append to it.
 */
export function streamTexts(record: Pick<TaskRecord, "task_id" | "session_id">) {
  const ids = `"taskId":${JSON.stringify(record.task_id)},"contextId":${JSON.stringify(record.session_id)}`;
  const starts =
    `{"artifactUpdate":{${ids},"artifact":{"artifactId":"${OUTPUT_ARTIFACT}","name":"${OUTPUT_ARTIFACT}",` +
    `"parts":[{"text":`;
  const appends = `{"artifactUpdate":{${ids},"artifact":{"artifactId":"${OUTPUT_ARTIFACT}","parts":[{"text":`;
  return (event: StoredEvent, firstToken: boolean): string[] =>
    event.kind === "token"
      ? [
        `${firstToken ? starts : appends}${JSON.stringify(String(event.data.message))}}]}${
          firstToken ? "" : ',"append":true'
        }}}`,
      ]
      : streamResponses(record, event).map((response) => JSON.stringify(response));
}
