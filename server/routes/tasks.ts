import { createRoute, type Hook, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Env } from "hono";
import { TASK_STATUSES, type TaskLimits, type TaskRecord, type TaskStatus } from "../../lib/tasks/mod.ts";
import type { TaskStore } from "../../lib/store/mod.ts";
import { Conflict, InvalidInput, NotFound } from "../errors.ts";
import type { Webhook } from "../../lib/store/mod.ts";
import type { DestinationPolicy } from "../../lib/webhooks/mod.ts";
import { submitWatched, subscribe, WebhookRefused } from "../webhooks.ts";
import { refusal, TaskWebhook } from "./webhooks.ts";
import { createdHeaders, DEFAULT_IDEMPOTENCY_TTL_MS, IdempotencyHeaders, idempotent } from "./idempotency.ts";
import { needs } from "../auth/scopes.ts";
import { json, jsonBodyProblems, problemResponse } from "./responses.ts";
import { Child, Metadata, publicTask, Status, Summary, summary, Task, Tree, type TreeNode } from "./task_shapes.ts";
import type { ScopeOf } from "../scope.ts";

/** Task API settings; the defaults are the issue's. */
export interface TaskApiConfig {
  /** Whether a cancel without `cascade` also cancels descendants (`CASCADE_CANCEL`). */
  readonly cascadeCancel: boolean;
  /** How long an `Idempotency-Key` is remembered (`IDEMPOTENCY_TTL_SECONDS`); default a day. */
  readonly idempotencyTtlMs?: number;
  /** What one request may make and one tenant keep (`TASK_MAX_*`, `TENANT_MAX_*`); default `DEFAULT_TASK_LIMITS`. */
  readonly limits?: TaskLimits;
  /** Where a task's `webhook` may point (`WEBHOOK_*`); none: the service delivers no webhooks. */
  readonly webhooks?: DestinationPolicy;
}

export const DEFAULT_TASK_API: TaskApiConfig = { cascadeCancel: true, idempotencyTtlMs: DEFAULT_IDEMPOTENCY_TTL_MS };

const TaskParams = z.object({
  task_id: z.string().min(1).max(200).openapi({ param: { name: "task_id", in: "path" } }),
});
const BooleanText = z.enum(["true", "false"]).transform((v) => v === "true");
/** A status in any letter case: the specification spells them `CANCELLED`, the API `cancelled`. */
const StatusFilter = z.string().transform((v) => v.toLowerCase()).pipe(Status).openapi({
  type: "string",
  enum: [...TASK_STATUSES],
  description: "A status, in any letter case",
});

/** What the task routes work with. */
export interface TaskRouteDeps {
  /** A request's tenant's tasks, runner and `Idempotency-Key`s (the store's, so that they hold across processes). */
  readonly scopeOf: ScopeOf;
  readonly config: TaskApiConfig;
}

const SUBMIT = createRoute({
  method: "post",
  path: "/tasks",
  security: needs("tasks:write"),
  summary: "Submit a task",
  request: {
    headers: IdempotencyHeaders,
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
            webhook: TaskWebhook.optional().openapi({
              description: "Tell this URL when the task ends or asks (signed, Standard Webhooks); the answer has " +
                "the webhook's id and secret, shown once",
            }),
          }),
        },
      },
    },
  },
  responses: {
    200: json(
      Task,
      "The task an earlier request with the same Idempotency-Key created (`Idempotent-Replayed: true`)",
    ),
    201: json(
      Task.extend({
        webhook: z.object({ id: z.string(), secret: z.string() }).optional().openapi({
          description: "With a webhook: its id (GET /webhooks/{id}/deliveries) and signing secret, shown this once",
        }),
      }),
      "The task, queued",
    ),
    409: problemResponse(
      "The Idempotency-Key was used for a different request, or its request is still being handled",
    ),
    ...jsonBodyProblems,
    422: problemResponse(
      "Unknown kind, invalid input, or a request past a tree limit (TASK_MAX_*); `errors` names each field",
    ),
    429: problemResponse("The tenant is over a quota (TENANT_MAX_*); `Retry-After` says when to ask again"),
  },
});

const LIST = createRoute({
  method: "get",
  path: "/tasks",
  security: needs("tasks:read"),
  summary: "List tasks, newest first",
  request: {
    query: z.object({
      status: StatusFilter.optional(),
      session_id: z.string().min(1).optional(),
      roots: BooleanText.optional().openapi({ description: "true: only top-level tasks (no parent)" }),
      order: z.enum(["desc", "asc"]).optional().openapi({
        description: "Creation order: newest first (`desc`, the default) or oldest first",
      }),
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
    422: problemResponse("An unknown status or order, or a bad limit, cursor or roots"),
  },
});

const READ = createRoute({
  method: "get",
  path: "/tasks/{task_id}",
  security: needs("tasks:read"),
  summary: "Read a task with its result and updates",
  request: { params: TaskParams },
  responses: { 200: json(Task, "The task"), 404: problemResponse("No such task") },
});

const DELETE = createRoute({
  method: "delete",
  path: "/tasks/{task_id}",
  security: needs("tasks:write"),
  summary: "Delete a task, its descendants and their events (cancelling them first)",
  request: { params: TaskParams },
  responses: { 204: { description: "Deleted" }, 404: problemResponse("No such task") },
});

const CANCEL = createRoute({
  method: "post",
  path: "/tasks/{task_id}/cancel",
  security: needs("tasks:write"),
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
    ...jsonBodyProblems,
    422: problemResponse("cascade is not a boolean"),
  },
});

const CHILDREN = createRoute({
  method: "get",
  path: "/tasks/{task_id}/children",
  security: needs("tasks:read"),
  summary: "Direct children in spawn order",
  request: { params: TaskParams },
  responses: {
    200: json(z.object({ task_id: z.string(), children: z.array(Child) }), "The children"),
    404: problemResponse("No such task"),
  },
});

const TREE = createRoute({
  method: "get",
  path: "/tasks/{task_id}/tree",
  security: needs("tasks:read"),
  summary: "The task and all its descendants",
  request: { params: TaskParams },
  responses: { 200: json(Tree, "The tree"), 404: problemResponse("No such task") },
});

const ANSWER = createRoute({
  method: "post",
  path: "/tasks/{task_id}/input",
  security: needs("tasks:write"),
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
    ...jsonBodyProblems,
    422: problemResponse("input is missing, or nested too deep"),
  },
});

/** Another tenant's task is as unknown as one that never was: no existence leak. */
const notFound = (id: string) => new NotFound(`No task '${id}'; GET /tasks lists the tasks there are`);

/** A child as `GET /tasks/{id}/children` lists it. */
const childRow = (r: TaskRecord) => ({
  task_id: r.task_id,
  spawn_key: r.spawn_key ?? "",
  status: r.status,
  ...(r.result && { result: r.result }),
  ...(r.error !== undefined && { error: r.error }),
  metadata: r.metadata,
});

/** The task and its descendants; `children()` lists records without their updates, so each node reads its own. */
async function treeOf(tasks: TaskStore, record: TaskRecord): Promise<TreeNode> {
  const kids = await Promise.all((await tasks.children(record.task_id)).map((kid) => tasks.get(kid.task_id)));
  return {
    task: publicTask(record),
    children: await Promise.all(kids.filter((kid) => kid !== undefined).map((kid) => treeOf(tasks, kid))),
  };
}

/**
 * The task API as a sub-app: `POST /tasks`, `GET /tasks`, `GET|DELETE /tasks/{task_id}`,
 * `POST /tasks/{task_id}/cancel`, `GET /tasks/{task_id}/children`, `GET /tasks/{task_id}/tree`,
 * `POST /tasks/{task_id}/input`. Errors are thrown, and become problems at the app's root
 * (`server/errors.ts`).
 */
export function taskRoutes<E extends Env>(
  deps: TaskRouteDeps,
  defaultHook: Hook<unknown, E, string, unknown>,
): OpenAPIHono<E> {
  const { scopeOf, config } = deps;
  const app = new OpenAPIHono<E>({ defaultHook });
  const ttlMs = config.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS;

  app.openapi(SUBMIT, async (c) => {
    const body = c.req.valid("json");
    const key = c.req.valid("header")["idempotency-key"];
    const scope = scopeOf(c);
    const { store } = scope;
    const createOnce = idempotent({ keys: store.idempotency, tasks: store.tasks, ttlMs });
    let hook: Webhook | undefined;
    const created = await createOnce(key, "POST /tasks", body, async () => {
      const { webhook, ...request } = body;
      if (!webhook) return await scope.runner.submit(request);
      const policy = config.webhooks;
      if (!policy) {
        throw new InvalidInput("This service delivers no webhooks (WEBHOOKS_ENABLED=false, or the edge entry)", [
          { field: "webhook", message: "webhooks are off here" },
        ]);
      }
      const watched = await submitWatched(
        scope,
        request,
        (task_id) =>
          subscribe(store, { ...webhook, task_id }, policy).catch((error) => {
            throw error instanceof WebhookRefused ? refusal(error, "webhook.url") : error;
          }),
      );
      hook = watched.webhook;
      return watched.record;
    });
    const shown = { ...publicTask(created.record), ...(hook && { webhook: { id: hook.id, secret: hook.secret } }) };
    return created.replayed ? c.json(shown, 200, createdHeaders(created)) : c.json(shown, 201, createdHeaders(created));
  });

  app.openapi(LIST, async (c) => {
    const { tasks } = scopeOf(c).store;
    const q = c.req.valid("query");
    const page = await tasks.list({
      status: q.status as TaskStatus | undefined,
      session_id: q.session_id,
      roots: q.roots,
      order: q.order ?? "desc",
      limit: q.limit ?? 20,
      cursor: q.cursor,
    });
    return c.json({ ...page, tasks: page.tasks.map(summary) }, 200);
  });

  app.openapi(READ, async (c) => {
    const { tasks } = scopeOf(c).store;
    const { task_id } = c.req.valid("param");
    const record = await tasks.get(task_id);
    if (!record) throw notFound(task_id);
    return c.json(publicTask(record), 200);
  });

  app.openapi(DELETE, async (c) => {
    const { runner } = scopeOf(c);
    const { task_id } = c.req.valid("param");
    if (!await runner.remove(task_id)) throw notFound(task_id);
    return c.body(null, 204);
  });

  app.openapi(CANCEL, async (c) => {
    const { runner } = scopeOf(c);
    const { task_id } = c.req.valid("param");
    const fromQuery = c.req.valid("query").cascade;
    const fromBody = (c.req.valid("json") as { cascade?: boolean } | undefined)?.cascade;
    const cascade = fromQuery ?? fromBody ?? config.cascadeCancel;
    const { found, cancelled_count } = await runner.cancel(task_id, cascade);
    if (!found) throw notFound(task_id);
    return c.json({ cancelled_count }, 200);
  });

  app.openapi(CHILDREN, async (c) => {
    const { tasks } = scopeOf(c).store;
    const { task_id } = c.req.valid("param");
    if (!await tasks.get(task_id)) throw notFound(task_id);
    return c.json({ task_id, children: (await tasks.children(task_id)).map(childRow) }, 200);
  });

  app.openapi(TREE, async (c) => {
    const { tasks } = scopeOf(c).store;
    const { task_id } = c.req.valid("param");
    const root = await tasks.get(task_id);
    if (!root) throw notFound(task_id);
    return c.json(await treeOf(tasks, root), 200);
  });

  app.openapi(ANSWER, async (c) => {
    const { runner, store: { tasks } } = scopeOf(c);
    const { task_id } = c.req.valid("param");
    const outcome = await runner.input(task_id, c.req.valid("json").input);
    if (!outcome.ok && outcome.status === undefined) throw notFound(task_id);
    if (!outcome.ok) {
      throw new Conflict(
        `Task '${task_id}' is ${outcome.status}, not input_required; send input only after its input_required event`,
      );
    }
    const record = await tasks.get(task_id);
    if (!record) throw notFound(task_id); // deleted meanwhile
    return c.json(publicTask(record), 200);
  });
  return app;
}
