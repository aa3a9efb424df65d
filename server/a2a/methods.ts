/**
 * A2A's methods over a tenant's scope, the same for both bindings: each takes the request's
 * params (the JSON of A2A 1.0's request messages) and answers the JSON of its response, or an
 * {@link A2AError}. A streaming method answers a {@link TaskStream} — what to send first, and from
 * which task event on — which `stream.ts` sends.
 *
 * @module
 */
import { z } from "zod";
import { FINAL_STATUSES, type StoredEvent, taskChannel, TaskInputError, type TaskRecord } from "../../lib/tasks/mod.ts";
import { submitWatched } from "../webhooks.ts";
import { type CallContext, notFound, parseParams } from "./call.ts";
import { A2AError } from "./errors.ts";
import { PushConfig, pushConfig, pushConfigMethods } from "./push_configs.ts";
import { a2aTask, type Json, statusOf, STREAM_END_KINDS } from "./wire.ts";

/** The A2A settings. */
export interface A2AConfig {
  /** `A2A_ENABLED`: the agent card and both bindings; default true. */
  readonly enabled: boolean;
  /** `A2A_DEFAULT_KIND`: the skill of a message that names none; default `answer`. */
  readonly defaultKind: string;
}

export const DEFAULT_A2A: A2AConfig = { enabled: true, defaultKind: "answer" };

/**
 * A task stream to send: the task as it is first (when there is a snapshot), then the task's
 * events above `after` until one of `endKinds` of the task itself.
 */
export interface TaskStream {
  readonly record: TaskRecord;
  readonly first?: { readonly response: Json; readonly eventId?: number };
  readonly after: number;
  readonly endKinds: ReadonlySet<string>;
  /** Whether the output artifact has begun (a token was sent before `after`): the next chunk appends. */
  readonly tokensStarted: boolean;
}

/** How a kind reads a message that is only text; a kind not here takes a data part. */
const TEXT_INPUT: Readonly<Record<string, (text: string) => unknown>> = {
  answer: (question) => ({ question }),
  retrieve: (question) => ({ question }),
  demo: (text) => ({ tokens: text.split(/(?<=\s)/) }),
};

const Part = z.object({ text: z.string().optional(), data: z.unknown().optional() }).passthrough();
const Message = z.object({
  messageId: z.string().min(1, "messageId is required"),
  role: z.string().optional(),
  parts: z.array(Part).min(1, "a message needs at least one part"),
  taskId: z.string().max(200).optional(),
  contextId: z.string().min(1).max(200).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
}).passthrough();
const SendParams = z.object({
  message: Message,
  configuration: z.object({
    returnImmediately: z.boolean().optional(),
    historyLength: z.number().int().min(0).optional(),
    taskPushNotificationConfig: PushConfig.optional(),
  }).passthrough().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
}).passthrough();
const TaskIdParams = z.object({
  id: z.string().min(1, "id is required").max(200),
  historyLength: z.coerce.number().int().min(0).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
}).passthrough();
const ListParams = z.object({
  contextId: z.string().max(200).optional(),
  status: z.string().optional(),
  pageSize: z.coerce.number().int().min(1).max(100).optional(),
  pageToken: z.string().regex(/^\d*$/, "pageToken must be a nextPageToken of an earlier page").optional(),
  historyLength: z.coerce.number().int().min(0).optional(),
  statusTimestampAfter: z.string().refine((t) => !Number.isNaN(Date.parse(t)), "must be an ISO 8601 time")
    .optional(),
  includeArtifacts: z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]).optional(),
}).passthrough();

/** The text of a message's text parts, and its first data part's value. */
function contentOf(message: z.output<typeof Message>) {
  const text = message.parts.filter((p) => p.text !== undefined).map((p) => p.text).join("\n");
  const data = message.parts.find((p) => p.data !== undefined)?.data;
  return { text, data };
}

/** The task input a message carries for `kind`: its data part, or its text as the kind reads text. */
function inputFor(kind: string, message: z.output<typeof Message>): unknown {
  const { text, data } = contentOf(message);
  if (data !== undefined) return data;
  const fromText = TEXT_INPUT[kind];
  if (fromText) return fromText(text);
  throw new A2AError(
    "INVALID_PARAMS",
    `The skill '${kind}' takes its input as a data part (its schema is on the agent card), not text`,
  );
}

/** What a message asks for: a new task, or an answer to one that waits for input. */
async function deliver(params: z.output<typeof SendParams>, ctx: CallContext) {
  const { message } = params;
  const { runner, store: { tasks, events } } = ctx.scope;
  if (message.taskId) {
    const record = await tasks.get(message.taskId);
    if (!record) throw notFound(message.taskId);
    if (message.contextId && message.contextId !== record.session_id) {
      throw new A2AError(
        "INVALID_PARAMS",
        `params.message.contextId '${message.contextId}' is not the context of task '${record.task_id}'`,
      );
    }
    if (record.status !== "input_required") {
      throw new A2AError(
        "UNSUPPORTED_OPERATION",
        `Task '${record.task_id}' is ${record.status}; a message to a task answers its question, so send one ` +
          "only while it is input-required (or leave taskId out to start a task)",
      );
    }
    const push = params.configuration?.taskPushNotificationConfig;
    if (push) await pushConfig(ctx, record.task_id, push);
    const after = await events.last(taskChannel(record.task_id));
    const { text, data } = contentOf(message);
    const outcome = await runner.input(record.task_id, data !== undefined ? data : text);
    if (!outcome.ok) {
      throw new A2AError("UNSUPPORTED_OPERATION", `Task '${record.task_id}' is no longer input-required`);
    }
    return { taskId: record.task_id, after };
  }
  const kind = String(message.metadata?.skill ?? params.metadata?.skill ?? ctx.defaultKind);
  if (!runner.kinds.includes(kind)) {
    throw new A2AError(
      "INVALID_PARAMS",
      `Unknown skill '${kind}' in params.message.metadata.skill; the agent card lists: ${runner.kinds.join(", ")}`,
    );
  }
  const request = {
    kind,
    input: inputFor(kind, message),
    session_id: message.contextId,
    metadata: { message: `A2A message ${message.messageId}` },
  };
  const push = params.configuration?.taskPushNotificationConfig;
  try {
    const record = push
      ? (await submitWatched(ctx.scope, request, (taskId) => pushConfig(ctx, taskId, push))).record
      : await runner.submit(request);
    return { taskId: record.task_id, after: 0 };
  } catch (error) {
    if (!(error instanceof TaskInputError)) throw error;
    const fields = error.errors.map((e) => `${e.field}: ${e.message}`).join("; ");
    throw new A2AError("INVALID_PARAMS", `${error.message}${fields ? ` (${fields})` : ""}`);
  }
}

/** Events of the task's channel above `after`, in batches, until one of `endKinds` of the task itself. */
async function* taskEvents(
  ctx: CallContext,
  taskId: string,
  after: number,
  endKinds: ReadonlySet<string>,
): AsyncGenerator<StoredEvent[]> {
  for await (const batch of ctx.scope.store.events.followBatches(taskChannel(taskId), after, ctx.signal)) {
    const end = batch.findIndex((e) => endKinds.has(e.kind) && e.data.task_id === taskId);
    yield end === -1 ? batch : batch.slice(0, end + 1);
    if (end !== -1) return;
  }
}

/** The task once it reaches a state that ends a wait (final, or input-required) after event `after`. */
async function settled(ctx: CallContext, taskId: string, after: number): Promise<TaskRecord> {
  const now = await ctx.scope.store.tasks.get(taskId);
  // A final task's events may be gone with it (retention); otherwise its channel has the event that ends the wait.
  if (!now || !FINAL_STATUSES.has(now.status)) {
    for await (const _ of taskEvents(ctx, taskId, after, STREAM_END_KINDS)) { /* until it settles */ }
  }
  const record = await ctx.scope.store.tasks.get(taskId);
  if (!record) throw notFound(taskId);
  return record;
}

/** The tokens a task has streamed up to event `until`. */
async function outputUntil(ctx: CallContext, taskId: string, until: number): Promise<string> {
  let text = "";
  let after = 0;
  while (after < until) {
    const page = await ctx.scope.store.events.range(taskChannel(taskId), after, 1_000);
    if (page.length === 0) break;
    for (const event of page) if (event.id <= until && event.kind === "token") text += String(event.data.message);
    after = page[page.length - 1].id;
  }
  return text;
}

/** The A2A methods. */
export const methods = {
  /** SendMessage: the task, once it settles (or at once with `returnImmediately`). */
  async sendMessage(raw: unknown, ctx: CallContext): Promise<Json> {
    const params = parseParams(SendParams, raw);
    const { taskId, after } = await deliver(params, ctx);
    const record = params.configuration?.returnImmediately
      ? await ctx.scope.store.tasks.get(taskId)
      : await settled(ctx, taskId, after);
    if (!record) throw notFound(taskId);
    return { task: a2aTask(record, { historyLength: params.configuration?.historyLength }) };
  },

  /** SendStreamingMessage: the task as it is, then its events until it settles. */
  async sendStreamingMessage(raw: unknown, ctx: CallContext): Promise<TaskStream> {
    const params = parseParams(SendParams, raw);
    const { taskId, after } = await deliver(params, ctx);
    const record = await ctx.scope.store.tasks.get(taskId);
    if (!record) throw notFound(taskId);
    const tokensStarted = after > 0 && (await outputUntil(ctx, taskId, after)) !== "";
    const first = { response: { task: a2aTask(record, { historyLength: 0 }) } };
    return { record, first, after, endKinds: STREAM_END_KINDS, tokensStarted };
  },

  /**
   * SubscribeToTask: the task as it is (with the tokens so far), then its events until it ends;
   * after `lastEventId`, only the events after that one (a reconnect: no gap, no duplicate).
   */
  async subscribeToTask(raw: unknown, ctx: CallContext, lastEventId?: number): Promise<TaskStream> {
    const { id } = parseParams(TaskIdParams, raw);
    const { tasks, events } = ctx.scope.store;
    const last = await events.last(taskChannel(id)); // before the task: anything later comes as an event
    const record = await tasks.get(id);
    if (!record) throw notFound(id);
    if (lastEventId !== undefined) {
      const tokensStarted = (await outputUntil(ctx, id, lastEventId)) !== "";
      return { record, after: lastEventId, endKinds: ENDS_SUBSCRIPTION, tokensStarted };
    }
    if (FINAL_STATUSES.has(record.status)) {
      throw new A2AError(
        "UNSUPPORTED_OPERATION",
        `Task '${id}' is ${record.status}: nothing more will happen to it; GetTask reads it`,
      );
    }
    const output = await outputUntil(ctx, id, last);
    const first = { response: { task: a2aTask(record, { output, historyLength: 0 }) }, eventId: last };
    return { record, first, after: last, endKinds: ENDS_SUBSCRIPTION, tokensStarted: output !== "" };
  },

  /** GetTask. */
  async getTask(raw: unknown, ctx: CallContext): Promise<Json> {
    const { id, historyLength } = parseParams(TaskIdParams, raw);
    const record = await ctx.scope.store.tasks.get(id);
    if (!record) throw notFound(id);
    return a2aTask(record, { historyLength });
  },

  /** ListTasks: newest first; `statusTimestampAfter` keeps those changed since. */
  async listTasks(raw: unknown, ctx: CallContext): Promise<Json> {
    const params = parseParams(ListParams, raw);
    const status = params.status && params.status !== "TASK_STATE_UNSPECIFIED" ? params.status : undefined;
    const ours = status === undefined ? undefined : statusOf(status);
    const pageSize = params.pageSize ?? 50;
    if (status !== undefined && ours === undefined) {
      if (!status.startsWith("TASK_STATE_")) {
        throw new A2AError("INVALID_PARAMS", `params.status: '${status}' is not a TaskState (TASK_STATE_WORKING, …)`);
      }
      return { tasks: [], nextPageToken: "", pageSize, totalSize: 0 }; // a state our tasks never take
    }
    const since = params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : undefined;
    const shown: Json[] = [];
    let cursor = params.pageToken || undefined;
    let total = 0;
    // With a time filter, a few pages are read to fill this one; fewer than pageSize may come back.
    for (let reads = 0; reads < (since === undefined ? 1 : 10) && shown.length < pageSize; reads++) {
      const page = await ctx.scope.store.tasks.list({
        status: ours,
        session_id: params.contextId || undefined,
        order: "desc",
        limit: pageSize - shown.length,
        cursor,
      });
      total = page.total;
      for (const record of page.tasks) {
        if (since !== undefined && Date.parse(record.updated_at) <= since) continue;
        shown.push(
          a2aTask({ ...record, updates: [] }, {
            historyLength: params.historyLength ?? 0,
            artifacts: params.includeArtifacts ?? false,
          }),
        );
      }
      cursor = page.next_cursor;
      if (cursor === undefined) break;
    }
    return { tasks: shown, nextPageToken: cursor ?? "", pageSize, totalSize: total };
  },

  /** CancelTask: with `metadata.cascade` (default `CASCADE_CANCEL`) its sub-tasks too. */
  async cancelTask(raw: unknown, ctx: CallContext): Promise<Json> {
    const { id, metadata } = parseParams(TaskIdParams, raw);
    const { runner, store: { tasks } } = ctx.scope;
    const record = await tasks.get(id);
    if (!record) throw notFound(id);
    if (FINAL_STATUSES.has(record.status)) {
      throw new A2AError(
        "TASK_NOT_CANCELABLE",
        `Task '${id}' is ${record.status}; only a working or input-required task can be canceled`,
      );
    }
    const cascade = metadata?.cascade;
    if (cascade !== undefined && typeof cascade !== "boolean") {
      throw new A2AError("INVALID_PARAMS", "params.metadata.cascade must be true or false");
    }
    await runner.cancel(id, cascade ?? ctx.cascadeCancel);
    const after = await tasks.get(id);
    if (!after) throw notFound(id);
    if (!FINAL_STATUSES.has(after.status)) throw new A2AError("TASK_NOT_CANCELABLE", `Task '${id}' did not cancel`);
    return a2aTask(after);
  },

  /** GetExtendedAgentCard: the public card says everything; there is no other. */
  extendedAgentCard(): Promise<Json> {
    return Promise.reject(
      new A2AError(
        "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
        "This agent has one card, the public one at /.well-known/agent-card.json",
      ),
    );
  },

  ...pushConfigMethods,
};

/** A subscription follows a task through its questions, to its end. */
const ENDS_SUBSCRIPTION: ReadonlySet<string> = new Set(["done", "failed", "cancelled"]);
