/**
 * The web service as a Hono app, independent of the runtime that serves it.
 *
 * @example
 * ```ts
 * import { createApp } from "./mod.ts";
 * import { createMemoryStore } from "../lib/store/mod.ts";
 * const app = createApp({ store: createMemoryStore() });
 * const res = await app.request("/health"); // {"status":"healthy","store":"memory"}
 * ```
 *
 * @module
 */
import { createRoute, type Hook, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Env } from "hono";
import { HTTPException } from "hono/http-exception";
import { ClientDisconnected, RequestBodyTimeout } from "../lib/runtime/mod.ts";
import { type Store, type StoreOutage, storeOutage } from "../lib/store/mod.ts";
import { VERSION } from "../lib/version/mod.ts";
import { bodyLimit } from "./body_limit.ts";
import { type FieldError, problem, traceId } from "./errors.ts";
import { DEFAULT_RATE_LIMIT, type RateLimitConfig, rateLimitedRoutes } from "./routes/rate_limited.ts";
import { createTaskRunner, demoTask, type TaskDefinition, type TaskRunner } from "../lib/tasks/mod.ts";
import { answerTasks, type LlmConfig, type Retriever } from "../lib/answer/mod.ts";
import { DEFAULT_TASK_API, type TaskApiConfig, taskRoutes } from "./routes/tasks.ts";
import { DEFAULT_STREAMS, type StreamConfig, streamRoutes } from "./routes/streams.ts";
import { docsRoutes } from "./docs/mod.ts";
import { createSearchIndex, type PipelineSource, pipelineTasks, type SearchIndex } from "../lib/pipelines/mod.ts";
import { pipelineRoutes } from "./routes/pipelines.ts";

export { DEFAULT_RATE_LIMIT, type RateLimitConfig } from "./routes/rate_limited.ts";
export { DEFAULT_TASK_API, type TaskApiConfig } from "./routes/tasks.ts";
export { type ChannelScope, DEFAULT_STREAMS, type StreamConfig } from "./routes/streams.ts";

/** What the app is built from; entries build the real ones, tests their own. */
export interface ServerDeps {
  readonly store: Store;
  readonly version?: string;
  readonly rateLimit?: RateLimitConfig;
  /** Request bodies over this size answer 413. Default 1 MiB. */
  readonly bodyLimitBytes?: number;
  /** Where log lines go. Default: stderr. */
  readonly log?: (line: string) => void;
  /** Where debug lines go (clients that time out or leave mid-body). Default: nowhere. */
  readonly debug?: (line: string) => void;
  /** Logs store outages, once when one starts and once when it ends; share it with the task runners. */
  readonly outage?: StoreOutage;
  /** The clock of log lines that say how long something lasted. Default: `Date.now`. */
  readonly now?: () => number;
  /**
   * Runs tasks; default: an in-process runner over `store` with every kind of `taskDefinitions()`,
   * made on first use.
   */
  readonly tasks?: TaskRunner;
  /** The document search behind the default runner's `answer` and `retrieve` kinds. Default: the search index. */
  readonly retriever?: Retriever;
  /** The model that writes answers; none: extractive answers. */
  readonly llm?: LlmConfig;
  /** The fetch of the model's requests. Default: the global `fetch`. */
  readonly fetch?: typeof fetch;
  readonly taskApi?: TaskApiConfig;
  readonly streams?: StreamConfig;
  /** Pipelines: the source folder (`PIPELINE_SOURCE_DIR`) and this process's search index (default: one over `store`). */
  readonly pipelines?: { readonly source?: PipelineSource; readonly search?: SearchIndex };
}

const Health = z.object({ status: z.enum(["healthy", "unhealthy"]), store: z.string(), cause: z.string().optional() })
  .openapi("Health");
const Root = z.object({ name: z.string(), version: z.string(), docs: z.string() }).openapi("Root");

/**
 * The task kinds the service runs: `demo`, the pipeline kinds over `store`'s documents (reading
 * `source`, the `PIPELINE_SOURCE_DIR`), and `answer` and `retrieve` over `retriever`.
 */
export function taskDefinitions(deps: {
  readonly store: Store;
  readonly retriever: Retriever;
  readonly source?: PipelineSource;
  readonly llm?: LlmConfig;
  readonly fetch?: typeof fetch;
}): TaskDefinition[] {
  return [
    demoTask,
    ...pipelineTasks(deps.store.documents, { source: deps.source }),
    ...answerTasks({ retriever: deps.retriever, llm: deps.llm, fetch: deps.fetch }),
  ];
}

/** Builds the service. */
export function createApp(deps: ServerDeps): OpenAPIHono {
  const log = deps.log ?? ((line: string) => console.error(line));
  const defaultHook: Hook<unknown, Env, string, unknown> = (result, c) => {
    if (result.success) return;
    const errors: FieldError[] = result.error.issues.map((i) => ({
      field: i.path.join(".") || "(body)",
      message: i.message,
    }));
    return problem(c, 422, `${errors.length} invalid field${errors.length > 1 ? "s" : ""}`, { errors });
  };
  const app = new OpenAPIHono({ defaultHook });

  const maxBytes = deps.bodyLimitBytes ?? 1024 * 1024;
  app.use("*", bodyLimit(maxBytes, (c) => problem(c, 413, `The request body is over ${maxBytes} bytes`)));
  const outage = deps.outage ?? storeOutage(log, deps.now);
  app.use("*", rateLimitedRoutes(deps.store, deps.rateLimit ?? DEFAULT_RATE_LIMIT, outage));

  app.openapi(
    createRoute({
      method: "get",
      path: "/",
      responses: { 200: { content: { "application/json": { schema: Root } }, description: "Service information" } },
    }),
    (c) => c.json({ name: "storectl", version: deps.version ?? VERSION, docs: "/docs" }, 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/health",
      responses: {
        200: { content: { "application/json": { schema: Health } }, description: "The store answers" },
        503: { content: { "application/json": { schema: Health } }, description: "The store does not answer" },
      },
    }),
    async (c) => {
      try {
        await deps.store.ping();
        outage.answered();
        return c.json({ status: "healthy" as const, store: deps.store.kind }, 200);
      } catch (error) {
        outage.failed(`traceId=${traceId(c)} path=${c.req.path}`, error as Error);
        return c.json({ status: "unhealthy" as const, store: deps.store.kind, cause: (error as Error).message }, 503);
      }
    },
  );

  let runner = deps.tasks;
  let search = deps.pipelines?.search;
  const searchIndex = () => search ??= createSearchIndex(deps.store);
  const tasks = () =>
    runner ??= createTaskRunner({
      store: deps.store,
      definitions: taskDefinitions({
        store: deps.store,
        retriever: deps.retriever ?? { search: (query, k) => searchIndex().search(query, k) },
        source: deps.pipelines?.source,
        llm: deps.llm,
        fetch: deps.fetch,
      }),
      log,
    });
  app.route("/", taskRoutes(tasks, deps.store.tasks, deps.taskApi ?? DEFAULT_TASK_API, defaultHook));
  app.route(
    "/",
    pipelineRoutes({
      runner: tasks,
      documents: deps.store.documents,
      search: searchIndex,
      source: deps.pipelines?.source,
    }, defaultHook),
  );
  app.route("/", streamRoutes(deps.store.events, deps.store.tasks, deps.streams ?? DEFAULT_STREAMS, defaultHook));

  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: { title: "storectl service", version: deps.version ?? VERSION },
  });
  app.route("/", docsRoutes("/openapi.json"));

  for (const path of ["/", "/health", "/openapi.json", "/docs"]) {
    app.all(
      path,
      (c) => problem(c, 405, `${c.req.method} is not allowed on ${path}`, { headers: { allow: "GET, HEAD" } }),
    );
  }
  app.notFound((c) => problem(c, 404, `No route for ${c.req.method} ${c.req.path}`));
  app.onError((error, c) => {
    // The client's doing, not the server's: no error line, no stack.
    if (error instanceof RequestBodyTimeout || error instanceof ClientDisconnected) {
      deps.debug?.(`traceId=${traceId(c)} ${c.req.method} ${c.req.path}: ${error.message}`);
      const status = error instanceof RequestBodyTimeout ? 408 : 400;
      return problem(c, status, error.message, { headers: { connection: "close" } });
    }
    // Hono's validators throw a 400 for a body that is not JSON: the client's mistake, not a 500.
    if (error instanceof HTTPException && error.status === 400) {
      const json = /JSON/.test(error.message);
      return problem(
        c,
        400,
        json ? `The request body is not valid JSON (${error.message}); send a JSON object` : error.message,
      );
    }
    log(`error traceId=${traceId(c)} ${c.req.method} ${c.req.path}: ${error.stack ?? error.message}`);
    return problem(c, 500, "The server failed to handle the request; quote the traceId when reporting it");
  });
  return app;
}
