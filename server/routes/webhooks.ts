import { createRoute, type Hook, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Env } from "hono";
import type { Delivery } from "../../lib/store/mod.ts";
import type { DestinationPolicy } from "../../lib/webhooks/mod.ts";
import { needs } from "../auth/scopes.ts";
import { Conflict, InvalidInput, NotFound } from "../errors.ts";
import type { ScopeOf } from "../scope.ts";
import { publicWebhook, subscribe, WEBHOOK_EVENTS, WebhookRefused } from "../webhooks.ts";
import { json, jsonBodyProblems, problemResponse } from "./responses.ts";

const Events = z.array(z.enum(WEBHOOK_EVENTS)).min(1).max(WEBHOOK_EVENTS.length).openapi({
  description: `Which events to deliver (default all): ${WEBHOOK_EVENTS.join(", ")}`,
  example: ["done", "failed"],
});
const Url = z.string().min(1).max(2048).openapi({
  description: "https (http only with WEBHOOK_ALLOW_HTTP); private, loopback and metadata addresses are refused " +
    "unless WEBHOOK_ALLOW_HOSTS names the host",
  example: "https://receiver.example/hooks",
});
/** What `POST /tasks` takes in `webhook`. */
export const TaskWebhook = z.object({ url: Url, events: Events.optional() }).openapi("TaskWebhook");

const Webhook = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  task_id: z.string().optional(),
  session_id: z.string().optional(),
  created_at: z.string(),
}).openapi("Webhook");
const Created = Webhook.extend({
  secret: z.string().openapi({
    description: "The Standard Webhooks signing secret (whsec_…): shown this once; verify each delivery with it",
  }),
}).openapi("WebhookCreated");
const Attempt = z.object({
  at: z.string(),
  ok: z.boolean(),
  status: z.number().int().optional(),
  error: z.string().optional(),
  ms: z.number(),
});
const DeliveryShown = z.object({
  id: z.string().openapi({ description: "Also its webhook-id header, the same on every attempt" }),
  task_id: z.string(),
  event: z.string(),
  state: z.enum(["pending", "delivered", "failed"]),
  created_at: z.string(),
  next_attempt_at: z.string().optional(),
  attempts: z.array(Attempt),
  payload: z.unknown().openapi({ description: "The body delivered" }),
}).openapi("WebhookDelivery");
const WebhookParams = z.object({
  webhook_id: z.string().min(1).max(200).openapi({ param: { name: "webhook_id", in: "path" } }),
});

const CREATE = createRoute({
  method: "post",
  path: "/webhooks",
  security: needs("tasks:write"),
  summary: "Subscribe to the tenant's task events (signed deliveries, Standard Webhooks)",
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({
            url: Url,
            events: Events.optional(),
            session_id: z.string().min(1).max(200).optional().openapi({ description: "Only this session's tasks" }),
          }),
        },
      },
    },
  },
  responses: {
    201: json(Created, "The subscription, with its secret (shown once)"),
    ...jsonBodyProblems,
    409: problemResponse("The tenant has as many webhooks as it may keep"),
    422: problemResponse("A bad field, or a URL the rules refuse (the reason named)"),
  },
});
const LIST = createRoute({
  method: "get",
  path: "/webhooks",
  security: needs("tasks:read"),
  summary: "The tenant's webhooks, oldest first",
  responses: { 200: json(z.object({ webhooks: z.array(Webhook) }), "The webhooks (without secrets)") },
});
const READ = createRoute({
  method: "get",
  path: "/webhooks/{webhook_id}",
  security: needs("tasks:read"),
  summary: "A webhook",
  request: { params: WebhookParams },
  responses: { 200: json(Webhook, "The webhook"), 404: problemResponse("No such webhook") },
});
const DELETE = createRoute({
  method: "delete",
  path: "/webhooks/{webhook_id}",
  security: needs("tasks:write"),
  summary: "Delete a webhook and its deliveries",
  request: { params: WebhookParams },
  responses: { 204: { description: "Deleted" }, 404: problemResponse("No such webhook") },
});
const DELIVERIES = createRoute({
  method: "get",
  path: "/webhooks/{webhook_id}/deliveries",
  security: needs("tasks:read"),
  summary: "A webhook's recent deliveries with each attempt, newest first",
  request: { params: WebhookParams },
  responses: {
    200: json(z.object({ deliveries: z.array(DeliveryShown) }), "The deliveries"),
    404: problemResponse("No such webhook"),
  },
});
const REDELIVER = createRoute({
  method: "post",
  path: "/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver",
  security: needs("tasks:write"),
  summary: "Deliver again (same webhook-id), now",
  request: {
    params: WebhookParams.extend({
      delivery_id: z.string().min(1).max(300).openapi({ param: { name: "delivery_id", in: "path" } }),
    }),
  },
  responses: {
    202: json(z.object({ id: z.string(), state: z.literal("pending") }), "Queued: it is tried at once"),
    404: problemResponse("No such webhook or delivery"),
  },
});

const notFound = (id: string) => new NotFound(`No webhook '${id}'; GET /webhooks lists them`);

/** A delivery as `GET …/deliveries` shows it. */
function shown(d: Delivery) {
  return {
    id: d.id,
    task_id: d.task_id,
    event: d.event,
    state: d.state,
    created_at: d.created_at,
    ...(d.next_at !== undefined && { next_attempt_at: new Date(d.next_at).toISOString() }),
    attempts: [...d.attempts],
    payload: JSON.parse(d.body),
  };
}

/** A refused subscription as the API answers it: 422 naming the reason, or 409 at the limit. */
export function refusal(error: WebhookRefused, field: string): Error {
  return error.limit
    ? new Conflict(error.message)
    : new InvalidInput(error.message, [{ field, message: error.message }]);
}

/**
 * The webhook API as a sub-app: `POST|GET /webhooks`, `GET|DELETE /webhooks/{webhook_id}`,
 * `GET /webhooks/{webhook_id}/deliveries` and `POST …/deliveries/{delivery_id}/redeliver`.
 */
export function webhookRoutes<E extends Env>(
  scopeOf: ScopeOf,
  policy: DestinationPolicy,
  defaultHook: Hook<unknown, E, string, unknown>,
): OpenAPIHono<E> {
  const app = new OpenAPIHono<E>({ defaultHook });
  app.openapi(CREATE, async (c) => {
    const { store } = scopeOf(c);
    try {
      const webhook = await subscribe(store, c.req.valid("json"), policy);
      return c.json({ ...publicWebhook(webhook), secret: webhook.secret }, 201, {
        location: `/webhooks/${webhook.id}`,
      });
    } catch (error) {
      throw error instanceof WebhookRefused ? refusal(error, "url") : error;
    }
  });
  app.openapi(LIST, async (c) => {
    const all = await scopeOf(c).store.webhooks.list();
    return c.json({ webhooks: all.filter((w) => !w.a2a).map(publicWebhook) }, 200);
  });
  app.openapi(READ, async (c) => {
    const { webhook_id } = c.req.valid("param");
    const webhook = await scopeOf(c).store.webhooks.get(webhook_id);
    if (!webhook) throw notFound(webhook_id);
    return c.json(publicWebhook(webhook), 200);
  });
  app.openapi(DELETE, async (c) => {
    const { webhook_id } = c.req.valid("param");
    if (!await scopeOf(c).store.webhooks.remove(webhook_id)) throw notFound(webhook_id);
    return c.body(null, 204);
  });
  app.openapi(DELIVERIES, async (c) => {
    const { webhook_id } = c.req.valid("param");
    const { webhooks } = scopeOf(c).store;
    if (!await webhooks.get(webhook_id)) throw notFound(webhook_id);
    return c.json({ deliveries: (await webhooks.deliveries(webhook_id)).map(shown) }, 200);
  });
  app.openapi(REDELIVER, async (c) => {
    const { webhook_id, delivery_id } = c.req.valid("param");
    const { webhooks } = scopeOf(c).store;
    if (!await webhooks.redeliver(webhook_id, delivery_id, Date.now())) {
      throw new NotFound(`Webhook '${webhook_id}' has no delivery '${delivery_id}'; GET its deliveries lists them`);
    }
    return c.json({ id: delivery_id, state: "pending" as const }, 202);
  });
  return app;
}
