/**
 * The web service as a Hono app, independent of the runtime that serves it.
 *
 * @example
 * ```ts
 * import { createApp, createService, loadServerConfig } from "./mod.ts";
 * import { createMemoryStore } from "../lib/store/mod.ts";
 * const app = createApp(createService(loadServerConfig({}), { store: createMemoryStore() }));
 * const res = await app.request("/health"); // {"status":"healthy","store":"memory"}
 * ```
 *
 * @module
 */
import { createRoute, type Hook, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Env, ErrorHandler } from "hono";
import { cors } from "hono/cors";
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
import { rateLimitedRoutes } from "./routes/rate_limited.ts";
import { taskRoutes } from "./routes/tasks.ts";
import { webhookRoutes } from "./routes/webhooks.ts";
import { sharedChannels, streamRoutes } from "./routes/streams.ts";
import { pipelineRoutes } from "./routes/pipelines.ts";
import { docsRoutes } from "./docs/mod.ts";
import { consoleRoutes } from "./console/mod.ts";
import { authenticate, callerOf } from "./auth/principal.ts";
import { type Need, OPEN, routeScopes } from "./auth/scopes.ts";
import { createTickets } from "./auth/tickets.ts";
import { ticketRoutes } from "./auth/ticket_route.ts";
import type { Service } from "./service.ts";
import { mcpRoutes } from "./mcp/mod.ts";
import { healthRoutes } from "./routes/health.ts";
import { accessLog } from "./log.ts";
import { traceRequests } from "./tracing.ts";
import { isTracing } from "../lib/tracing/mod.ts";
import { a2aRoutes } from "./a2a/mod.ts";
import type { CardFacts } from "./a2a/card.ts";
import type { ScopeOf } from "./scope.ts";

export { loadServerConfig, type ServerConfig } from "./config.ts";
export { createService, type Scope, type Service, type ServiceParts, taskDefinitions } from "./service.ts";
export { DEFAULT_RATE_LIMIT, type RateLimitConfig } from "./routes/rate_limited.ts";
export { DEFAULT_TASK_API, type TaskApiConfig } from "./routes/tasks.ts";
export { type ChannelScope, DEFAULT_STREAMS, type StreamConfig } from "./routes/streams.ts";
export { callerOf, type Principal } from "./auth/principal.ts";
export { createTokenSet, parseTokens, type TokenSet } from "./auth/tokens.ts";

const Root = z.object({ name: z.string(), version: z.string(), docs: z.string() }).openapi("Root");
const ROOT = createRoute({
  method: "get",
  path: "/",
  security: OPEN,
  responses: { 200: { content: { "application/json": { schema: Root } }, description: "Service information" } },
});

/** Invalid fields are thrown like every other error: the root's onError answers them all. */
const invalidFields: Hook<unknown, Env, string, unknown> = (result) => {
  if (result.success) return;
  const errors: FieldError[] = result.error.issues.map((i) => ({
    field: i.path.join(".") || "(body)",
    message: i.message,
  }));
  throw new InvalidInput(`${errors.length} invalid field${errors.length > 1 ? "s" : ""}`, errors);
};

/** The service's HTTP face: middleware, routes and the one error mapping, over `service`. */
export function createApp(service: Service): OpenAPIHono {
  const { config, store, tokens } = service;
  const app = new OpenAPIHono({ defaultHook: invalidFields });
  // With tokens, the answers that anyone gets (the rate-limited route's, /health's) do not name the store's address.
  const tellCause = !tokens;
  guard(app, service, tellCause);
  // What each route needs, read back from the routes' own `security` (once every route is in).
  let scopes: Map<string, Need> | undefined;
  const scopeTable = () => scopes ??= routeScopes(app.openAPIRegistry.definitions as never);
  const tickets = createTickets(store.idempotency);
  app.use("*", authenticate({ tokens, tickets, scopes: scopeTable }));
  // After authentication (a stranger learns no parameter names), before any route reads its input.
  const body = jsonBody();
  app.use("*", (c, next) => (checkUrl(c), body(c, next)));

  app.openapi(ROOT, (c) => c.json({ name: "storectl", version: VERSION, docs: "/docs" }, 200));
  app.route("/", healthRoutes(service, tellCause));
  // Each request works in its caller's tenant's scope; running open, in the store's own.
  const scopeOf: ScopeOf = (c) => service.scope(callerOf(c)?.tenant);
  const taskApi = config.tasks;
  const webhooks = service.webhooks ? config.webhooks.delivery.policy : undefined;
  app.route("/", taskRoutes({ scopeOf, config: { ...taskApi, webhooks } }, invalidFields));
  if (webhooks) app.route("/", webhookRoutes(scopeOf, webhooks, invalidFields));
  app.route(
    "/",
    pipelineRoutes({ scopeOf, idempotencyTtlMs: taskApi.idempotencyTtlMs, source: service.source }, invalidFields),
  );
  // The streams' settings, with what the metrics count of them and the drain that ends them.
  const drain = { signal: service.draining, retryMs: config.drain.retryMs };
  const streams = { ...config.streams, observer: service.metrics?.streams, drain };
  app.route("/", streamRoutes(scopeOf, streams, invalidFields));
  app.route("/", ticketRoutes(tickets, scopeTable, invalidFields));
  if (config.a2a.enabled) {
    app.route("/", a2aRoutes({ scopeOf, card: cardFacts(service), streams, webhooks }, invalidFields));
  }
  if (config.mcpEnabled) {
    const cascadeCancel = config.tasks.cascadeCancel;
    app.route("/", mcpRoutes({ scopeOf, kinds: service.kinds, cascadeCancel, drain }, invalidFields));
  }
  serveOpenApi(app, { title: "storectl service", version: VERSION }, config.rateLimit.routes, service.kinds);
  app.route("/", docsRoutes("/openapi.json"));
  app.route("/", consoleRoutes({ tokens: tokens !== undefined, streams: sharedChannels(config.streams) }));

  // A path that exists with other methods is a 405 naming them; one that does not, a 404.
  app.notFound(noRoute(() => app.routes));
  app.onError(answerError(service));
  return app;
}

/** What the agent card says of `service`; an A2A_DEFAULT_KIND that is no kind stops it at start. */
function cardFacts(service: Service): CardFacts {
  const { config, kinds, tokens } = service;
  const defaultKind = config.a2a.defaultKind;
  if (!kinds.some((k) => k.kind === defaultKind)) {
    throw new Error(
      `A2A_DEFAULT_KIND '${defaultKind}' is not a task kind of this service; use one of: ${
        kinds.map((k) => k.kind).join(", ")
      } (or A2A_ENABLED=false)`,
    );
  }
  return {
    kinds,
    tokens: tokens !== undefined,
    pushNotifications: service.webhooks,
    cascadeCancel: config.tasks.cascadeCancel,
    defaultKind,
  };
}

/**
 * What every request passes before authentication, outermost first: the security headers, the
 * Host and cross-origin checks, CORS, the body limit, the rate-limited route, and the refusal
 * of methods no request can be copied with.
 */
function guard(app: OpenAPIHono, service: Service, tellCause: boolean): void {
  const { config, tokens } = service;
  // Outermost, so that every answer has them and is measured and logged, however it was made (the guards' refusals too).
  const observers = [service.metrics?.answered, config.logFormat === "json" ? accessLog(service.log) : undefined]
    .filter((observe) => observe !== undefined);
  app.use("*", securityHeaders(observers));
  // Inside it, so that the access line has the request's span.
  if (isTracing()) app.use("*", traceRequests());
  // Then, in one middleware (each layer costs a promise per request): the Host names answered
  // (running open: against DNS rebinding), no writes from other origins (a trusted origin's
  // preflight is a read, and passes on to CORS).
  const hosts = config.auth.allowedHosts;
  const checkHost = hosts !== "any" && (hosts.length || !tokens) ? hostCheck(hosts) : undefined;
  const origins = config.auth.corsOrigins;
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
  const maxBytes = config.bodyLimitBytes;
  app.use(
    "*",
    bodyLimit(maxBytes, () => {
      throw new TooLarge(`The request body is over ${maxBytes} bytes`);
    }),
  );
  app.use(
    "*",
    rateLimitedRoutes(service.store, config.rateLimit, service.outage, tellCause, service.metrics?.rateLimit),
  );
  // Before anything reads the body: nothing can copy a TRACE or TRACK request to give it one.
  app.use("*", refuseUnbuildableMethods(() => app.routes));
}

/** The one place errors become problems (server/errors.ts says which status each kind of error is). */
function answerError(service: Service): ErrorHandler {
  return (error, c) => {
    const answer = problemOf(error, c);
    if (answer.log === "error") {
      service.log(`error traceId=${traceId(c)} ${c.req.method} ${c.req.path}: ${error.stack ?? error.message}`);
    } else if (answer.log === "debug") {
      service.debug?.(`traceId=${traceId(c)} ${c.req.method} ${c.req.path}: ${error.message}`);
    }
    return problem(c, answer.status, answer.detail, answer);
  };
}
