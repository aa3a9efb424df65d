import { createRoute, type Hook, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context, Env } from "hono";
import { StoreUnavailableError, type TaskStore } from "../../lib/store/mod.ts";
import { TASK_STATUSES, TaskInputError, type TaskRecord, type TaskRunner } from "../../lib/tasks/mod.ts";
import { problem } from "../errors.ts";
import { json, problemResponse } from "./responses.ts";

/** Task API settings; the defaults are the issue's. */
export interface TaskApiConfig {
  /** Whether a cancel without `cascade` also cancels descendants (`CASCADE_CANCEL`). */
  readonly cascadeCancel: boolean;
}

export const DEFAULT_TASK_API: TaskApiConfig = { cascadeCancel: true };

const Update = z.object({ message: z.string(), update_type: z.string() }).openapi("TaskUpdate");
const Status = z.enum(TASK_STATUSES as [string, ...string[]]).openapi("TaskStatus");
const Metadata = z.record(z.string(), z.unknown()).openapi({ example: { message: "summarise the report" } });
const Task = z.object({
  task_id: z.string(),
  session_id: z.string(),
  kind: z.string(),
  status: Status,
  metadata: Metadata,
  input: z.unknown(),
  result: z.record(z.string(), z.unknown()).optional().openapi({ example: { answer: "Hello" } }),
  error: z.string().optional(),
  prompt: z.string().optional().openapi({ description: "The question of an input_required task" }),
  parent_id: z.string().optional(),
  spawn_key: z.string().optional(),
  updates: z.array(Update),
  created_at: z.string(),
  updated_at: z.string(),
}).openapi("Task");
const Summary = z.object({
  task_id: z.string(),
  session_id: z.string(),
  kind: z.string(),
  status: Status,
  metadata: Metadata,
})
  .openapi("TaskSummary");
const Child = z.object({
  task_id: z.string(),
  spawn_key: z.string(),
  status: Status,
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.string().optional(),
  metadata: Metadata,
}).openapi("TaskChild");
type TreeNode = { task: z.infer<typeof Task>; children: TreeNode[] };
const Tree: z.ZodType<TreeNode> = z.lazy(() => z.object({ task: Task, children: z.array(Tree) })).openapi("TaskTree", {
  description: "A task and its descendants; each child node has the same shape",
});
const TaskParams = z.object({
  task_id: z.string().min(1).max(200).openapi({ param: { name: "task_id", in: "path" } }),
});
const BooleanText = z.enum(["true", "false"]).transform((v) => v === "true");

/** What a task looks like in responses: the record without internals (creation order, a taken answer). */
export function publicTask(record: TaskRecord): z.infer<typeof Task> {
  const { seq: _seq, answer: _answer, updates, ...shown } = record;
  return { ...shown, updates: [...updates] };
}

const summary = (r: TaskRecord) => ({
  task_id: r.task_id,
  session_id: r.session_id,
  kind: r.kind,
  status: r.status,
  metadata: r.metadata,
});

/**
 * The task API as a sub-app: `POST /tasks`, `GET /tasks`, `GET|DELETE /tasks/{task_id}`,
 * `POST /tasks/{task_id}/cancel`, `GET /tasks/{task_id}/children`, `GET /tasks/{task_id}/tree`,
 * `POST /tasks/{task_id}/input`. Problems per ARCHITECTURE §6; a store that does not answer
 * is a 503 naming it.
 */
export function taskRoutes<E extends Env>(
  runner: () => TaskRunner,
  tasks: TaskStore,
  config: TaskApiConfig,
  defaultHook: Hook<unknown, E, string, unknown>,
): OpenAPIHono<E> {
  const app = new OpenAPIHono<E>({ defaultHook });
  const notFound = (c: Context, id: string) => problem(c, 404, `No task '${id}'; GET /tasks lists the tasks there are`);

  app.openapi(
    createRoute({
      method: "post",
      path: "/tasks",
      summary: "Submit a task",
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.object({
                kind: z.string().min(1).openapi({
                  example: "demo",
                  description: "demo, answer (input {question, k?}), retrieve, or a pipeline kind: pipeline_run, " +
                    "pipeline_document, pipeline_prepare, pipeline_ingest, pipeline_full (usually sent through /pipelines)",
                }),
                input: z.unknown().optional().openapi({ example: { steps: 2, tokens: ["Hello", " world"] } }),
                session_id: z.string().min(1).max(200).optional(),
                metadata: Metadata.optional(),
              }),
            },
          },
        },
      },
      responses: {
        201: json(Task, "The task, queued"),
        422: problemResponse("Unknown kind or invalid input; `errors` names each field"),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      try {
        const record = await runner().submit(body);
        return c.json(publicTask(record), 201, { location: `/tasks/${record.task_id}` });
      } catch (error) {
        if (!(error instanceof TaskInputError)) throw error;
        return problem(c, 422, error.message, { errors: [...error.errors] }) as never;
      }
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/tasks",
      summary: "List tasks, oldest first",
      request: {
        query: z.object({
          status: Status.optional(),
          session_id: z.string().min(1).optional(),
          limit: z.string().regex(/^\d+$/, "limit must be a whole number").transform(Number)
            .refine((n) => n >= 1 && n <= 100, "limit must be from 1 to 100").optional()
            .openapi({ type: "integer", example: 20 }),
          cursor: z.string().regex(/^\d+$/, "cursor must be a next_cursor from an earlier page").optional(),
        }),
      },
      responses: {
        200: json(
          z.object({ tasks: z.array(Summary), total: z.number().int(), next_cursor: z.string().optional() }),
          "A page of tasks; `total` counts all that match",
        ),
        422: problemResponse("An unknown status, or a bad limit or cursor"),
      },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const page = await tasks.list({
        status: q.status as TaskRecord["status"] | undefined,
        session_id: q.session_id,
        limit: q.limit ?? 20,
        cursor: q.cursor,
      });
      return c.json({ ...page, tasks: page.tasks.map(summary) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/tasks/{task_id}",
      summary: "Read a task with its result and updates",
      request: { params: TaskParams },
      responses: { 200: json(Task, "The task"), 404: problemResponse("No such task") },
    }),
    async (c) => {
      const { task_id } = c.req.valid("param");
      const record = await tasks.get(task_id);
      return record ? c.json(publicTask(record), 200) : notFound(c, task_id) as never;
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/tasks/{task_id}",
      summary: "Delete a task, its descendants and their events (cancelling them first)",
      request: { params: TaskParams },
      responses: { 204: { description: "Deleted" }, 404: problemResponse("No such task") },
    }),
    async (c) => {
      const { task_id } = c.req.valid("param");
      return await runner().remove(task_id) ? c.body(null, 204) : notFound(c, task_id) as never;
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/tasks/{task_id}/cancel",
      summary: "Cancel a task, and with cascade its descendants",
      description: "`cascade` comes from the query or the JSON body; without it the server's CASCADE_CANCEL applies.",
      request: {
        params: TaskParams,
        query: z.object({ cascade: BooleanText.optional().openapi({ type: "boolean" }) }),
        body: {
          required: false,
          content: { "application/json": { schema: z.object({ cascade: z.boolean().optional() }) } },
        },
      },
      responses: {
        200: json(
          z.object({ cancelled_count: z.number().int().openapi({ description: "Tasks actually moved to cancelled" }) }),
          "How many tasks were moved to cancelled (finished ones are not counted)",
        ),
        404: problemResponse("No such task"),
        422: problemResponse("cascade is not a boolean"),
      },
    }),
    async (c) => {
      const { task_id } = c.req.valid("param");
      const fromQuery = c.req.valid("query").cascade;
      const fromBody = (c.req.valid("json") as { cascade?: boolean } | undefined)?.cascade;
      const cascade = fromQuery ?? fromBody ?? config.cascadeCancel;
      const { found, cancelled_count } = await runner().cancel(task_id, cascade);
      return found ? c.json({ cancelled_count }, 200) : notFound(c, task_id) as never;
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/tasks/{task_id}/children",
      summary: "Direct children in spawn order",
      request: { params: TaskParams },
      responses: {
        200: json(z.object({ task_id: z.string(), children: z.array(Child) }), "The children"),
        404: problemResponse("No such task"),
      },
    }),
    async (c) => {
      const { task_id } = c.req.valid("param");
      if (!await tasks.get(task_id)) return notFound(c, task_id) as never;
      const children = (await tasks.children(task_id)).map((r) => ({
        task_id: r.task_id,
        spawn_key: r.spawn_key ?? "",
        status: r.status,
        ...(r.result && { result: r.result }),
        ...(r.error !== undefined && { error: r.error }),
        metadata: r.metadata,
      }));
      return c.json({ task_id, children }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/tasks/{task_id}/tree",
      summary: "The task and all its descendants",
      request: { params: TaskParams },
      responses: { 200: json(Tree, "The tree"), 404: problemResponse("No such task") },
    }),
    async (c) => {
      const { task_id } = c.req.valid("param");
      const root = await tasks.get(task_id);
      if (!root) return notFound(c, task_id) as never;
      const node = async (record: TaskRecord): Promise<TreeNode> => ({
        task: publicTask(record),
        children: await Promise.all((await tasks.children(record.task_id)).map(node)),
      });
      return c.json(await node(root), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/tasks/{task_id}/input",
      summary: "Answer an input_required task",
      request: {
        params: TaskParams,
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.object({
                input: z.unknown().refine((v) => v !== undefined && v !== null, "input is required"),
              }),
            },
          },
        },
      },
      responses: {
        200: json(Task, "The task, resumed"),
        404: problemResponse("No such task"),
        409: problemResponse("The task is not waiting for input"),
        422: problemResponse("input is missing"),
      },
    }),
    async (c) => {
      const { task_id } = c.req.valid("param");
      const outcome = await runner().input(task_id, c.req.valid("json").input);
      if (!outcome.ok && outcome.status === undefined) return notFound(c, task_id) as never;
      if (!outcome.ok) {
        return problem(
          c,
          409,
          `Task '${task_id}' is ${outcome.status}, not input_required; send input only after its input_required event`,
        ) as never;
      }
      return c.json(publicTask((await tasks.get(task_id))!), 200);
    },
  );

  app.onError((error, c) => {
    if (!(error instanceof StoreUnavailableError)) throw error;
    return problem(c, 503, `The task store did not answer: ${error.message}. Try again shortly`, {
      headers: { "retry-after": "1" },
    });
  });
  return app;
}
