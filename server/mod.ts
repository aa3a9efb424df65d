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
import { type Store, type StoreOutage, storeOutage } from "../lib/store/mod.ts";
import { VERSION } from "../lib/version/mod.ts";
import { bodyLimit } from "../lib/serve/mod.ts";
import { type FieldError, InvalidInput, problem, problemOf, TooLarge, traceId } from "./errors.ts";
import { jsonBody } from "./json_body.ts";
import { checkUrl } from "./well_formed.ts";
import { securityHeaders } from "./security_headers.ts";
import { hostCheck } from "./allowed_hosts.ts";
import { crossSiteCheck } from "./cross_site.ts";
import { noRoute, refuseUnbuildableMethods } from "./methods.ts";
import { serveOpenApi } from "./openapi.ts";
import { DEFAULT_RATE_LIMIT, NO_STORE_ANSWER, type RateLimitConfig, rateLimitedRoutes } from "./routes/rate_limited.ts";
import { createTaskRunner, demoTask, type TaskDefinition, type TaskRunner } from "../lib/tasks/mod.ts";
import { answerTasks, type LlmConfig, type Retriever } from "../lib/answer/mod.ts";
import { DEFAULT_TASK_API, type TaskApiConfig, taskRoutes } from "./routes/tasks.ts";
import { type ChannelScope, DEFAULT_STREAMS, type StreamConfig, streamRoutes } from "./routes/streams.ts";
import { docsRoutes } from "./docs/mod.ts";
import { consoleRoutes } from "./console/mod.ts";
import { createSearchIndex, type PipelineSource, pipelineTasks, type SearchIndex } from "../lib/pipelines/mod.ts";
import { pipelineRoutes } from "./routes/pipelines.ts";
import { cors } from "hono/cors";
import { authenticate, callerOf } from "./auth/principal.ts";
import type { Scope, ScopeOf } from "./scope.ts";
import { type Need, OPEN, routeScopes } from "./auth/scopes.ts";
import { createTickets } from "./auth/tickets.ts";
import { ticketRoutes } from "./auth/ticket_route.ts";
import type { TokenSet } from "./auth/tokens.ts";

export { DEFAULT_RATE_LIMIT, type RateLimitConfig } from "./routes/rate_limited.ts";
export { DEFAULT_TASK_API, type TaskApiConfig } from "./routes/tasks.ts";
export { type ChannelScope, DEFAULT_STREAMS, type StreamConfig } from "./routes/streams.ts";
export { callerOf, type Principal } from "./auth/principal.ts";
export { createTokenSet, parseTokens, type TokenSet } from "./auth/tokens.ts";

/** Access control (issue 21): tokens, browser origins, stream tickets. */
export interface AuthConfig {
  /** The tokens of `SERVICE_TOKENS_FILE`; none: the service runs open (for local use). */
  readonly tokens?: TokenSet;
  /** `CORS_ORIGINS`: origins browsers may call from; none: no CORS headers at all. */
  readonly corsOrigins?: readonly string[];
  /**
   * `ALLOWED_HOSTS`: names besides localhost and IP addresses that requests may address (`Host`).
   * Running open, only those are answered (DNS rebinding); with tokens, any name unless some are
   * listed; `"any"`: every name (the edge entry, which is public under its platform's names).
   */
  readonly allowedHosts?: readonly string[] | "any";
  /** How long a stream ticket lives. Default 60 s. */
  readonly ticketTtlMs?: number;
}

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
  /** Which streams exist; the store writes only the shared channels (session, global) of those that do. */
  readonly streams?: StreamConfig;
  /** Pipelines: the source folder (`PIPELINE_SOURCE_DIR`) and this process's search index (default: one over `store`). */
  readonly pipelines?: { readonly source?: PipelineSource; readonly search?: SearchIndex };
  /** Tokens, CORS origins and stream tickets; default: open, no CORS. */
  readonly auth?: AuthConfig;
  /**
   * Each tenant's runner and search index over its view of `store`, made by the entry so that
   * every tenant's queued tasks run from the start; a tenant not here gets them on its first
   * request.
   */
  readonly tenants?: ReadonlyMap<string, { readonly tasks: TaskRunner; readonly search: SearchIndex }>;
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
  // Invalid fields are thrown like every other error: the root's onError answers them all.
  const defaultHook: Hook<unknown, Env, string, unknown> = (result) => {
    if (result.success) return;
    const errors: FieldError[] = result.error.issues.map((i) => ({
      field: i.path.join(".") || "(body)",
      message: i.message,
    }));
    throw new InvalidInput(`${errors.length} invalid field${errors.length > 1 ? "s" : ""}`, errors);
  };
  const app = new OpenAPIHono({ defaultHook });

  // Outermost, so that every answer has them, however it was made.
  app.use("*", securityHeaders());
  // Then, in one middleware (each layer costs a promise per request): the Host names answered
  // (running open: against DNS rebinding), no writes from other origins (a trusted origin's
  // preflight is a read, and passes on to CORS).
  const hosts = deps.auth?.allowedHosts;
  const checkHost = hosts !== "any" && (hosts?.length || !deps.auth?.tokens) ? hostCheck(hosts ?? []) : undefined;
  const origins = deps.auth?.corsOrigins ?? [];
  const checkOrigin = crossSiteCheck(origins);
  app.use("*", (c, next) => {
    checkHost?.(c);
    checkOrigin(c);
    return next();
  });
  if (origins.length > 0) {
    // Before authentication, so that a preflight (which carries no token) is answered before anything asks for one.
    app.use(
      "*",
      cors({
        origin: [...origins],
        allowHeaders: ["Authorization", "Content-Type", "Idempotency-Key", "Last-Event-ID"],
        exposeHeaders: ["Location", "Idempotent-Replayed", "Retry-After", "WWW-Authenticate"],
        maxAge: 600,
      }),
    );
  }
  const maxBytes = deps.bodyLimitBytes ?? 1024 * 1024;
  app.use(
    "*",
    bodyLimit(maxBytes, () => {
      throw new TooLarge(`The request body is over ${maxBytes} bytes`);
    }),
  );
  const outage = deps.outage ?? storeOutage(log, deps.now);
  const rateLimit = deps.rateLimit ?? DEFAULT_RATE_LIMIT;
  // With tokens, the answers that anyone gets (this route's, /health's) do not name the store's address.
  const tellCause = !deps.auth?.tokens;
  app.use("*", rateLimitedRoutes(deps.store, rateLimit, outage, tellCause));
  // Before anything reads the body: nothing can copy a TRACE or TRACK request to give it one.
  app.use("*", refuseUnbuildableMethods(() => app.routes));
  // What each route needs, read back from the routes' own `security` (once every route is in).
  let scopes: Map<string, Need> | undefined;
  const scopeTable = () => scopes ??= routeScopes(app.openAPIRegistry.definitions as never);
  const tickets = createTickets(deps.store.idempotency, { ttlMs: deps.auth?.ticketTtlMs });
  app.use("*", authenticate({ tokens: deps.auth?.tokens, tickets, scopes: scopeTable }));
  // After authentication (a stranger learns no parameter names), before any route reads its input.
  const body = jsonBody();
  app.use("*", (c, next) => (checkUrl(c), body(c, next)));

  app.openapi(
    createRoute({
      method: "get",
      path: "/",
      security: OPEN,
      responses: { 200: { content: { "application/json": { schema: Root } }, description: "Service information" } },
    }),
    (c) => c.json({ name: "storectl", version: deps.version ?? VERSION, docs: "/docs" }, 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/health",
      security: OPEN,
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
        const cause = tellCause ? (error as Error).message : NO_STORE_ANSWER;
        return c.json({ status: "unhealthy" as const, store: deps.store.kind, cause }, 503);
      }
    },
  );

  // A scope per tenant (its store view, runner and search index); running open, the store's own.
  const scopeOver = (store: Store, given: { tasks?: TaskRunner; search?: SearchIndex } = {}): Scope => {
    let runner = given.tasks;
    let search = given.search;
    const searchIndex = () => search ??= createSearchIndex(store);
    const retriever = deps.retriever ?? { search: (query: string, k: number) => searchIndex().search(query, k) };
    return {
      store,
      search: searchIndex,
      runner: () =>
        runner ??= createTaskRunner({
          store,
          definitions: taskDefinitions({
            store,
            retriever,
            source: deps.pipelines?.source,
            llm: deps.llm,
            fetch: deps.fetch,
          }),
          limits: deps.taskApi?.limits,
          log,
        }),
    };
  };
  const open = scopeOver(deps.store, { tasks: deps.tasks, search: deps.pipelines?.search });
  const tenants = new Map<string, Scope>();
  const scopeOf: ScopeOf = (c) => {
    const tenant = callerOf(c)?.tenant;
    if (tenant === undefined) return open;
    let scope = tenants.get(tenant);
    if (!scope) tenants.set(tenant, scope = scopeOver(deps.store.forTenant(tenant), deps.tenants?.get(tenant)));
    return scope;
  };
  const taskApi = deps.taskApi ?? DEFAULT_TASK_API;
  app.route("/", taskRoutes({ scopeOf, config: taskApi }, defaultHook));
  app.route(
    "/",
    pipelineRoutes(
      { scopeOf, idempotencyTtlMs: taskApi.idempotencyTtlMs, source: deps.pipelines?.source },
      defaultHook,
    ),
  );
  const streams = deps.streams ?? DEFAULT_STREAMS;
  // A shared channel no stream of this service reads is not written at all (tenant views follow the store).
  const serves = (scope: ChannelScope) => streams.enabled && streams.scopes.includes(scope);
  deps.store.tasks.shareEvents({ session: serves("SESSION"), global: serves("GLOBAL") });
  app.route("/", streamRoutes(scopeOf, streams, defaultHook));
  app.route("/", ticketRoutes(tickets, scopeTable, defaultHook));

  // The kinds' input schemas: the built-in kinds (those a given runner has, when one is given).
  const documented = taskDefinitions({ store: deps.store, retriever: { search: () => Promise.resolve([]) } })
    .filter((d) => !deps.tasks || deps.tasks.kinds.includes(d.kind));
  serveOpenApi(app, { title: "storectl service", version: deps.version ?? VERSION }, rateLimit.routes, documented);
  app.route("/", docsRoutes("/openapi.json"));
  app.route("/", consoleRoutes());

  // A path that exists with other methods is a 405 naming them; one that does not, a 404.
  app.notFound(noRoute(() => app.routes));
  // The one place errors become problems (server/errors.ts says which status each kind of error is).
  app.onError((error, c) => {
    const answer = problemOf(error, c);
    if (answer.log === "error") {
      log(`error traceId=${traceId(c)} ${c.req.method} ${c.req.path}: ${error.stack ?? error.message}`);
    } else if (answer.log === "debug") {
      deps.debug?.(`traceId=${traceId(c)} ${c.req.method} ${c.req.path}: ${error.message}`);
    }
    return problem(c, answer.status, answer.detail, answer);
  });
  return app;
}
