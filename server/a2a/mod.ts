/**
 * The service as an A2A 1.0 agent: the agent card, and the A2A methods over its tasks on the
 * JSON-RPC binding (`POST /a2a/jsonrpc`) and the HTTP+JSON binding (`/a2a/rest/…`). Every call
 * goes through the service's tokens, scopes and tenants like its own API: a call that reads
 * needs `tasks:read`, one that changes something `tasks:write`. docs/a2a.md says how tasks map onto A2A.
 *
 * @module
 */
import { createRoute, type Hook, OpenAPIHono } from "@hono/zod-openapi";
import type { Context, Env } from "hono";
import { needs, needsAnyOf, OPEN, type Scope } from "../auth/scopes.ts";
import { NotFound } from "../errors.ts";
import type { ScopeOf } from "../scope.ts";
import { createEventStreams, type EventStreamOptions } from "../sse.ts";
import { agentCard, type CardFacts, JSON_RPC_PATH, REST_PATH } from "./card.ts";
import { jsonRpcHandler } from "./jsonrpc.ts";
import { ANSWERED, type CallContext } from "./call.ts";
import { methods } from "./methods.ts";
import { restHandlers } from "./rest.ts";
import type { DestinationPolicy } from "../../lib/webhooks/mod.ts";

export { type A2AConfig, DEFAULT_A2A } from "./methods.ts";

/** What the A2A routes are built from. */
export interface A2ADeps {
  readonly scopeOf: ScopeOf;
  readonly card: CardFacts;
  /** The SSE settings of the service's streams (heartbeat, outgoing buffer). */
  readonly streams: EventStreamOptions;
  /** Where push notifications may go; none: the service delivers no webhooks. */
  readonly webhooks?: DestinationPolicy;
}

/** Who may call a route: a scope, either task scope (the handler asks for the call's own), or anyone. */
type Access = Scope | "either" | null;

const route = (method: "get" | "post" | "delete", path: string, access: Access, summary: string) =>
  createRoute({
    method,
    path,
    security: access === null ? OPEN : access === "either" ? needsAnyOf("tasks:read", "tasks:write") : needs(access),
    tags: ["A2A"],
    summary,
    responses: { 200: { description: "See the A2A 1.0 specification and docs/a2a.md" } },
  });

/** The agent card and both bindings, as a sub-app. */
export function a2aRoutes<E extends Env>(
  deps: A2ADeps,
  defaultHook: Hook<unknown, E, string, unknown>,
): OpenAPIHono<E> {
  const app = new OpenAPIHono<E>({ defaultHook });
  const streams = createEventStreams(deps.streams);
  const contextOf = (c: Context): CallContext => new Call(deps, deps.scopeOf(c));

  app.openapi(
    route("get", "/.well-known/agent-card.json", null, "The A2A agent card"),
    (c) => c.json(agentCard(deps.card, new URL(c.req.url).origin), 200, { "cache-control": "max-age=300" }),
  );
  app.openapi(
    route("post", JSON_RPC_PATH, "either", "A2A over JSON-RPC 2.0 (reads need tasks:read, writes tasks:write)"),
    jsonRpcHandler(streams, contextOf),
  );

  const rest = restHandlers(streams, contextOf);
  const body = (_c: Context, body: Record<string, unknown>) => body;
  const taskId = (c: Context) => ({ id: c.req.param("id"), ...c.req.query() });
  const configOf = (c: Context, body: Record<string, unknown>) => ({ ...body, taskId: c.req.param("id") });
  const configId = (c: Context) => ({ taskId: c.req.param("id"), id: c.req.param("config_id") });
  const R = REST_PATH;
  app.openapi(
    route("post", `${R}/message:send`, "tasks:write", "A2A SendMessage"),
    rest({ unary: methods.sendMessage }, body),
  );
  app.openapi(
    route("post", `${R}/message:stream`, "tasks:write", "A2A SendStreamingMessage (SSE)"),
    rest({ streaming: methods.sendStreamingMessage }, body),
  );
  app.openapi(
    route("get", `${R}/tasks`, "tasks:read", "A2A ListTasks"),
    rest({ unary: methods.listTasks }, (c) => c.req.query()),
  );
  app.openapi(route("get", `${R}/tasks/{id}`, "tasks:read", "A2A GetTask"), rest({ unary: methods.getTask }, taskId));
  const cancel = rest({ unary: methods.cancelTask }, (c, b) => ({ ...b, id: idOf(c) }), "tasks:write");
  const subscribe = rest({ streaming: methods.subscribeToTask }, (c) => ({ id: idOf(c) }), "tasks:read");
  app.openapi(
    route(
      "post",
      `${R}/tasks/{ref}`,
      "either",
      "A2A CancelTask ({id}:cancel, needs tasks:write) and SubscribeToTask ({id}:subscribe, needs tasks:read)",
    ),
    (c) => {
      const action = (c.req.param("ref") ?? "").split(":").at(-1);
      if (action === "cancel") return cancel(c);
      if (action === "subscribe") return subscribe(c);
      throw new NotFound(`No A2A call POST ${c.req.path}; use POST ${R}/tasks/{id}:cancel or :subscribe`);
    },
  );
  const configs = `${R}/tasks/{id}/pushNotificationConfigs`;
  app.openapi(
    route("post", configs, "tasks:write", "A2A CreateTaskPushNotificationConfig"),
    rest({ unary: methods.createPushConfig }, configOf),
  );
  app.openapi(
    route("get", configs, "tasks:read", "A2A ListTaskPushNotificationConfigs"),
    rest({ unary: methods.listPushConfigs }, (c) => ({ ...c.req.query(), taskId: c.req.param("id") })),
  );
  app.openapi(
    route("get", `${configs}/{config_id}`, "tasks:read", "A2A GetTaskPushNotificationConfig"),
    rest({ unary: methods.getPushConfig }, configId),
  );
  app.openapi(
    route("delete", `${configs}/{config_id}`, "tasks:write", "A2A DeleteTaskPushNotificationConfig"),
    rest({ unary: methods.deletePushConfig }, configId),
  );
  app.openapi(
    route("get", `${R}/extendedAgentCard`, "tasks:read", "A2A GetExtendedAgentCard"),
    rest({ unary: methods.extendedAgentCard }, () => ({})),
  );
  return app;
}

/** A call's context; its signal is made only when a call waits (a blocking SendMessage): most never need one. */
class Call implements CallContext {
  #stop?: AbortController;
  readonly cascadeCancel: boolean;
  readonly defaultKind: string;
  readonly webhooks?: DestinationPolicy;
  constructor({ card, webhooks }: A2ADeps, readonly scope: CallContext["scope"]) {
    this.cascadeCancel = card.cascadeCancel;
    this.defaultKind = card.defaultKind;
    this.webhooks = webhooks;
  }
  get signal(): AbortSignal {
    return (this.#stop ??= new AbortController()).signal;
  }
  end(): void {
    this.#stop?.abort(ANSWERED);
  }
}

/** The task id of `{id}:cancel` or `{id}:subscribe`. */
const idOf = (c: Context) => (c.req.param("ref") ?? "").replace(/:[^:]*$/, "");
