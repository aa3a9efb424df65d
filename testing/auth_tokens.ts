/**
 * Tokens for the access-control tests: one per scope, one holding every scope but
 * one, and an admin — as a `SERVICE_TOKENS_FILE` text (digests only) and the tokens themselves;
 * and the table of what each route needs, written out by hand so that a route whose declaration
 * changes, or a new route, fails the tests until the table says so too.
 *
 * @module
 */
import { type Scope, SCOPES } from "../server/auth/scopes.ts";
import { sha256Hex } from "../server/auth/tokens.ts";

/** Every operation but the open ones, with the scope it needs (Hono path syntax). */
export const ROUTE_SCOPES: readonly (readonly [method: string, path: string, scope: Scope | readonly Scope[]])[] = [
  ["POST", "/tasks", "tasks:write"],
  ["GET", "/tasks", "tasks:read"],
  ["GET", "/tasks/:task_id", "tasks:read"],
  ["DELETE", "/tasks/:task_id", "tasks:write"],
  ["POST", "/tasks/:task_id/cancel", "tasks:write"],
  ["GET", "/tasks/:task_id/children", "tasks:read"],
  ["GET", "/tasks/:task_id/tree", "tasks:read"],
  ["POST", "/tasks/:task_id/input", "tasks:write"],
  ["POST", "/pipelines/run", "pipelines:write"],
  ["POST", "/pipelines/documents", "pipelines:write"],
  ["POST", "/pipelines/prepare", "pipelines:write"],
  ["POST", "/pipelines/full", "pipelines:write"],
  ["POST", "/pipelines/ingest", "pipelines:write"],
  ["POST", "/pipelines/clear", "pipelines:write"],
  ["GET", "/pipelines/status", "pipelines:read"],
  ["GET", "/pipelines/search", "pipelines:read"],
  ["GET", "/tasks/:task_id/stream", "tasks:read"],
  ["GET", "/sessions/:session_id/stream", "tasks:read"],
  ["GET", "/stream", "tasks:read"],
  ["POST", "/stream-tickets", "tasks:read"],
  ["POST", "/webhooks", "tasks:write"],
  ["GET", "/webhooks", "tasks:read"],
  ["GET", "/webhooks/:webhook_id", "tasks:read"],
  ["DELETE", "/webhooks/:webhook_id", "tasks:write"],
  ["GET", "/webhooks/:webhook_id/deliveries", "tasks:read"],
  ["POST", "/webhooks/:webhook_id/deliveries/:delivery_id/redeliver", "tasks:write"],
  // A2A: the JSON-RPC endpoint and {id}:cancel|subscribe admit either task scope; the call then needs its own.
  ["POST", "/a2a/jsonrpc", ["tasks:read", "tasks:write"]],
  ["POST", "/a2a/rest/message:send", "tasks:write"],
  ["POST", "/a2a/rest/message:stream", "tasks:write"],
  ["GET", "/a2a/rest/tasks", "tasks:read"],
  ["GET", "/a2a/rest/tasks/:id", "tasks:read"],
  ["POST", "/a2a/rest/tasks/:ref", ["tasks:read", "tasks:write"]],
  ["POST", "/a2a/rest/tasks/:id/pushNotificationConfigs", "tasks:write"],
  ["GET", "/a2a/rest/tasks/:id/pushNotificationConfigs", "tasks:read"],
  ["GET", "/a2a/rest/tasks/:id/pushNotificationConfigs/:config_id", "tasks:read"],
  ["DELETE", "/a2a/rest/tasks/:id/pushNotificationConfigs/:config_id", "tasks:write"],
  ["GET", "/a2a/rest/extendedAgentCard", "tasks:read"],
  // MCP: any scope of a tool admits the endpoint; each tool then needs its own.
  ["POST", "/mcp", ["tasks:read", "tasks:write", "pipelines:read"]],
];

/** The routes that need no token (besides `/docs/*` and the Basic rate-limited route). */
export const OPEN_ROUTES: readonly string[] = [
  "GET /",
  "GET /health",
  "GET /livez",
  "GET /readyz",
  "GET /openapi.json",
  "GET /docs",
  "GET /console",
  "GET /.well-known/agent-card.json",
];

/** A concrete path of a route pattern. */
export const concrete = (path: string): string =>
  path.replace(":task_id", "t-nonexistent").replace(":session_id", "s-auth").replace(":id", "t-nonexistent")
    .replace(":ref", "t-nonexistent:subscribe").replace(":config_id", "c-nonexistent")
    .replace(":webhook_id", "wh-nonexistent").replace(":delivery_id", "d-nonexistent");

/** The tokens by role; `only[scope]` holds just that scope, `allBut[scope]` every other one but admin. */
export interface TestTokens {
  readonly admin: string;
  readonly only: Record<Scope, string>;
  readonly allBut: Record<Scope, string>;
  /** An admin of another tenant, `globex`. */
  readonly stranger: string;
  /** The JSON of a `SERVICE_TOKENS_FILE` for them (tenant `acme`, the stranger `globex`). */
  readonly file: string;
}

/** Makes fresh random tokens and their file. */
export function testTokens(): TestTokens {
  const token = (role: string) => `${role}-${crypto.randomUUID()}`;
  const entries: { name: string; tenant: string; scopes: Scope[]; sha256: string; token: string }[] = [];
  const add = (name: string, scopes: Scope[], tenant = "acme") => {
    const value = token(name);
    entries.push({ name, tenant, scopes, sha256: sha256Hex(value), token: value });
    return value;
  };
  const admin = add("admin", ["admin"]);
  const only = {} as Record<Scope, string>;
  const allBut = {} as Record<Scope, string>;
  for (const scope of SCOPES) {
    only[scope] = add(`only-${scope}`, [scope]);
    allBut[scope] = add(`all-but-${scope}`, SCOPES.filter((s) => s !== scope && s !== "admin"));
  }
  const stranger = add("stranger", ["admin"], "globex");
  const file = JSON.stringify(entries.map(({ token: _token, ...entry }) => entry), null, 2);
  return { admin, only, allBut, stranger, file };
}

/** A token that `need` refuses: every scope but it, or (a need any of several scopes meet) one of none of them. */
export function tokenWithout(tokens: TestTokens, need: Scope | readonly Scope[]): string {
  if (typeof need === "string") return tokens.allBut[need];
  return tokens.only[SCOPES.find((scope) => scope !== "admin" && !need.includes(scope))!];
}

/** A token of each scope that meets `need`, by itself. */
export function tokensMeeting(tokens: TestTokens, need: Scope | readonly Scope[]): string[] {
  return (typeof need === "string" ? [need] : need).map((scope) => tokens.only[scope]);
}

/** How a 403 names `need`: `'tasks:read'`, or `'tasks:read' or 'tasks:write'`. */
export function namedNeed(need: Scope | readonly Scope[]): string {
  return (typeof need === "string" ? [need] : need).map((scope) => `'${scope}'`).join(" or ");
}
