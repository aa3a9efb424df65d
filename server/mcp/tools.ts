/**
 * The service's MCP tools: one per task kind to submit it (its input schema the kind's own),
 * and tools to get, list, cancel and answer tasks and to search the documents. Each says the
 * scope it needs; a caller is offered only those its token grants.
 *
 * @module
 */
import { z } from "zod";
import {
  FINAL_STATUSES,
  taskChannel,
  type TaskDefinition,
  TaskInputError,
  type TaskRecord,
} from "../../lib/tasks/mod.ts";
import type { Scope as AuthScope } from "../auth/scopes.ts";
import type { Scope } from "../service.ts";
import { inputSchemaOf } from "../task_kinds_openapi.ts";
import { MCP_STATUS, mcpTask, toolResult } from "./wire.ts";

/** What a tool call works with. */
export interface ToolContext {
  readonly scope: Scope;
  readonly cascadeCancel: boolean;
  /** Ends when the client cancels the call or goes away. */
  readonly signal: AbortSignal;
  /** Tells the client a task's progress (blocking calls whose client asked for it). */
  readonly progress?: (message: string) => void;
}

/** A tool's answer: MCP's tool result. */
export interface ToolResult {
  readonly content: { type: "text"; text: string }[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
}

/** One tool. */
export interface ServiceTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly needs: AuthScope;
  readonly readOnly: boolean;
  /** For a submit: the kind it submits, and a submit's arguments from the call's (such calls may run as MCP tasks). */
  readonly submits?: {
    readonly kind: string;
    readonly args: (args: Record<string, unknown>) => Record<string, unknown>;
  };
  call(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult>;
}

/** A tool error the model can read. */
export const toolError = (text: string): ToolResult => ({ isError: true, content: [{ type: "text", text }] });

const json = (value: unknown): ToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value) }],
  structuredContent: value as Record<string, unknown>,
});

const TaskId = z.object({ task_id: z.string().min(1).max(200) }).strict();
const List = z.object({
  status: z.enum(Object.keys(MCP_STATUS) as [string, ...string[]]).optional(),
  session_id: z.string().max(200).optional(),
  limit: z.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
}).strict();
const Answer = z.object({ task_id: z.string().min(1).max(200), answer: z.unknown() }).strict();
const Search = z.object({ query: z.string().min(1).max(2_000), k: z.number().int().min(1).max(50).default(5) })
  .strict();

/** Reads `args` with `schema`, or says which argument is wrong. */
function read<T extends z.ZodType>(schema: T, args: unknown): z.output<T> | ToolResult {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  return toolError(parsed.error.issues.map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`).join("; "));
}
const failed = (value: unknown): value is ToolResult =>
  typeof value === "object" && value !== null && "content" in value;

const schemaOf = (schema: z.ZodType) => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: "input" });
  return rest;
};

/** The tools of a service running `kinds`. */
export function serviceTools(kinds: readonly TaskDefinition[]): ServiceTool[] {
  const submits = kinds.map((definition): ServiceTool => ({
    name: `submit_${definition.kind}`,
    description: `Start a '${definition.kind}' task and wait for it to finish or ask a question (or, for a client of ` +
      "MCP's tasks, return a task to poll). The result carries the task's result (an answer and its sources).",
    inputSchema: {
      type: "object",
      properties: {
        input: inputSchemaOf(definition),
        session_id: { type: "string", description: "groups tasks of one conversation" },
      },
      required: ["input"],
      additionalProperties: false,
    },
    needs: "tasks:write",
    readOnly: false,
    submits: { kind: definition.kind, args: (args) => args },
    call: (args, ctx) => submitAndWait(definition.kind, args, ctx),
  }));
  const answer = kinds.find((definition) => definition.kind === "answer");
  const ask: ServiceTool[] = answer
    ? [{
      name: "ask",
      description: "Ask a question of the pipelines' documents: the answer and the sources it comes from (an " +
        "'answer' task; it may ask to rephrase — answer_task answers that).",
      inputSchema: inputSchemaOf(answer),
      needs: "tasks:write",
      readOnly: false,
      submits: { kind: "answer", args: (args) => ({ input: args }) },
      call: (args, ctx) => submitAndWait("answer", { input: args }, ctx),
    }]
    : [];
  return [
    ...submits,
    ...ask,
    {
      name: "get_task",
      description: "A task as it is now: its status, its question, its result or its error.",
      inputSchema: schemaOf(TaskId),
      needs: "tasks:read",
      readOnly: true,
      async call(args, ctx) {
        const params = read(TaskId, args);
        if (failed(params)) return params;
        const record = await ctx.scope.store.tasks.get(params.task_id);
        return record ? json(publicTask(record)) : notFound(params.task_id);
      },
    },
    {
      name: "list_tasks",
      description: "The tasks, newest first, by status or session; pass next_cursor back for the next page.",
      inputSchema: schemaOf(List),
      needs: "tasks:read",
      readOnly: true,
      async call(args, ctx) {
        const params = read(List, args);
        if (failed(params)) return params;
        const page = await ctx.scope.store.tasks.list({ ...params, order: "desc" } as never);
        return json({ tasks: page.tasks.map(publicTask), total: page.total, next_cursor: page.next_cursor });
      },
    },
    {
      name: "cancel_task",
      description: "Cancel a task that has not finished, and its sub-tasks.",
      inputSchema: schemaOf(TaskId),
      needs: "tasks:write",
      readOnly: false,
      async call(args, ctx) {
        const params = read(TaskId, args);
        if (failed(params)) return params;
        const { found, cancelled_count } = await ctx.scope.runner.cancel(params.task_id, ctx.cascadeCancel);
        return found ? json({ task_id: params.task_id, cancelled_count }) : notFound(params.task_id);
      },
    },
    {
      name: "answer_task",
      description:
        "Answer the question of a task that waits for input (status input_required), then wait for it again.",
      inputSchema: schemaOf(Answer),
      needs: "tasks:write",
      readOnly: false,
      async call(args, ctx) {
        const params = read(Answer, args);
        if (failed(params)) return params;
        const after = await ctx.scope.store.events.last(taskChannel(params.task_id));
        const outcome = await ctx.scope.runner.input(params.task_id, params.answer);
        if (!outcome.ok) {
          const record = await ctx.scope.store.tasks.get(params.task_id);
          return record
            ? toolError(`Task ${params.task_id} is ${record.status}, not waiting for an answer`)
            : notFound(params.task_id);
        }
        return toolResult(await settled(ctx, params.task_id, after));
      },
    },
    {
      name: "search_documents",
      description: "Search the documents of the pipelines: the best k passages for a query.",
      inputSchema: schemaOf(Search),
      needs: "pipelines:read",
      readOnly: true,
      async call(args, ctx) {
        const params = read(Search, args);
        if (failed(params)) return params;
        return json({ query: params.query, hits: await ctx.scope.search.search(params.query, params.k) });
      },
    },
  ];
}

/** Submits a task of `kind` for a call, or says what is wrong with its input. */
export async function submit(
  kind: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<TaskRecord | ToolResult> {
  const session = args.session_id;
  if (session !== undefined && typeof session !== "string") return toolError("session_id: must be a string");
  try {
    return await ctx.scope.runner.submit({
      kind,
      input: args.input ?? {},
      ...(session && { session_id: session }),
      metadata: { message: "MCP tool call" },
    });
  } catch (error) {
    if (!(error instanceof TaskInputError)) throw error;
    return toolError(`${error.message}${error.errors.map((e) => `; ${e.field}: ${e.message}`).join("")}`);
  }
}

/** Submits a task and answers once it is final or asks a question. */
async function submitAndWait(kind: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  const record = await submit(kind, args, ctx);
  return failed(record) ? record : toolResult(await settled(ctx, record.task_id));
}

/** The kinds of a task's own events that end a wait: final ones, and a question. */
const ENDS_WAIT = new Set(["done", "failed", "cancelled", "input_required"]);

/**
 * The task once it is final or asks a question after its event `after`, telling `ctx.progress`
 * each of its updates meanwhile.
 */
async function settled(ctx: ToolContext, taskId: string, after = 0): Promise<TaskRecord> {
  const { tasks, events } = ctx.scope.store;
  const now = await tasks.get(taskId);
  if (now && FINAL_STATUSES.has(now.status)) return now;
  follow: for await (const batch of events.followBatches(taskChannel(taskId), after, ctx.signal)) {
    for (const event of batch) {
      if (event.data.task_id !== taskId) continue; // a sub-task's
      if (event.kind === "update") ctx.progress?.(String(event.data.message));
      if (ENDS_WAIT.has(event.kind)) break follow;
    }
  }
  ctx.signal.throwIfAborted();
  const record = await tasks.get(taskId);
  if (!record) throw new Error(`task ${taskId} is gone`);
  return record;
}

/** A task as the tools show it. */
function publicTask(record: TaskRecord) {
  const { seq: _, answer: __, ...shown } = record as TaskRecord & { children?: number };
  return { ...shown, mcp: mcpTask(record) };
}

const notFound = (id: string) => toolError(`No task ${id}; list_tasks lists the tasks there are`);
