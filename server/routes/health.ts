/**
 * The service's health, open to anyone like `/`: `/health` (the store answers; as it always
 * was), `/livez` (the process serves: restart it when this fails) and `/readyz` (send it
 * requests: the store answers, its runners run, it is not draining — each dependency said).
 *
 * @module
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { OPEN } from "../auth/scopes.ts";
import { traceId } from "../errors.ts";
import type { Service } from "../service.ts";
import { NO_STORE_ANSWER } from "./rate_limited.ts";

const Health = z.object({ status: z.enum(["healthy", "unhealthy"]), store: z.string(), cause: z.string().optional() })
  .openapi("Health");
const Check = z.object({ ok: z.boolean() }).passthrough();
const Ready = z.object({
  status: z.enum(["ready", "not ready"]),
  checks: z.object({ store: Check, runner: Check, draining: Check }),
}).openapi("Readiness");

const HEALTH = createRoute({
  method: "get",
  path: "/health",
  security: OPEN,
  responses: {
    200: { content: { "application/json": { schema: Health } }, description: "The store answers" },
    503: { content: { "application/json": { schema: Health } }, description: "The store does not answer" },
  },
});
const LIVEZ = createRoute({
  method: "get",
  path: "/livez",
  security: OPEN,
  responses: {
    200: {
      content: { "application/json": { schema: z.object({ status: z.literal("live") }) } },
      description: "The process serves requests",
    },
  },
});
const READYZ = createRoute({
  method: "get",
  path: "/readyz",
  security: OPEN,
  responses: {
    200: { content: { "application/json": { schema: Ready } }, description: "Ready for requests" },
    503: {
      content: { "application/json": { schema: Ready } },
      description: "Not ready: the store does not answer, the runners do not run, or the process is draining",
    },
  },
});

/** The three health routes; `tellCause`: whether a failing store's message may be shown (running open). */
export function healthRoutes(service: Service, tellCause: boolean): OpenAPIHono {
  const app = new OpenAPIHono();
  const { store } = service;
  app.openapi(HEALTH, async (c) => {
    try {
      await store.ping();
      service.outage.answered();
      return c.json({ status: "healthy" as const, store: store.kind }, 200);
    } catch (error) {
      service.outage.failed(`traceId=${traceId(c)} path=${c.req.path}`, error as Error);
      const cause = tellCause ? (error as Error).message : NO_STORE_ANSWER;
      return c.json({ status: "unhealthy" as const, store: store.kind, cause }, 503);
    }
  });
  app.openapi(LIVEZ, (c) => c.json({ status: "live" as const }, 200));
  app.openapi(READYZ, async (c) => {
    const { ready, checks } = await service.readiness();
    const store = checks.store.cause && !tellCause ? { ...checks.store, cause: NO_STORE_ANSWER } : checks.store;
    const body = { status: ready ? "ready" as const : "not ready" as const, checks: { ...checks, store } };
    return ready ? c.json(body, 200) : c.json(body, 503);
  });
  return app;
}
