/**
 * Which scope each operation needs. A route declares it once, in its `createRoute`
 * (`security: needs("tasks:read")`, or `security: OPEN`); `/openapi.json` shows that declaration
 * and {@link routeScopes} reads the same one back for the middleware, so the two cannot disagree.
 *
 * @example
 * ```ts
 * import { grants, needs } from "./scopes.ts";
 * needs("tasks:write"); // [{ bearer: ["tasks:write"] }]
 * grants(["admin"], "pipelines:write"); // true: admin implies every scope
 * ```
 *
 * @module
 */

/** Every scope a token can hold. */
export const SCOPES = ["tasks:read", "tasks:write", "pipelines:read", "pipelines:write", "admin"] as const;

/** One of {@link SCOPES}. */
export type Scope = typeof SCOPES[number];

/** The name of the security scheme in `/openapi.json`. */
export const BEARER = "bearer";

/** A route's `security`: a bearer token with `scope`. */
export const needs = (scope: Scope): { [BEARER]: Scope[] }[] => [{ [BEARER]: [scope] }];

/**
 * A route's `security` when any one of `scopes` lets a caller in: a route that serves calls of
 * more than one scope (A2A's JSON-RPC endpoint), whose handler asks for the call's own.
 */
export const needsAnyOf = (...scopes: Scope[]): { [BEARER]: Scope[] }[] =>
  scopes.map((scope) => ({ [BEARER]: [scope] }));

/** A route's `security` when it needs no token (`/`, `/health`). */
export const OPEN: [] = [];

/**
 * Paths served outside the OpenAPI registry that stay open: the document, its viewer, and the
 * console's page and assets (they hold no data; the console's API calls carry the token).
 */
export const OPEN_PATHS: readonly RegExp[] = [/^\/openapi\.json$/, /^\/docs(\/.*)?$/, /^\/console(\/.*)?$/];

/** Whether a caller holding `held` may do what needs `needed`; `admin` implies every scope. */
export function grants(held: readonly Scope[], needed: Scope): boolean {
  return held.includes(needed) || held.includes("admin");
}

/** Whether `held` grants `need`: its scope, or any one of its scopes. */
export function satisfies(held: readonly Scope[], need: Scope | readonly Scope[]): boolean {
  return typeof need === "string" ? grants(held, need) : need.some((scope) => grants(held, scope));
}

/** What a route needs: a scope, any one of some scopes, or nothing (`null`, an open route). */
export type Need = Scope | readonly Scope[] | null;

/** A route of the OpenAPI registry as `@hono/zod-openapi` keeps it. */
interface Definition {
  readonly type: string;
  readonly route?: { method: string; path: string; security?: Record<string, string[]>[] };
}

/**
 * The need of every registered operation, by `"GET /tasks/:task_id"` (Hono's path syntax). A
 * route that declares no `security` needs `admin`: forgetting the declaration closes a route
 * rather than opening it (and `scopes_test.ts` fails).
 */
export function routeScopes(definitions: readonly Definition[]): Map<string, Need> {
  const table = new Map<string, Need>();
  for (const { type, route } of definitions) {
    if (type !== "route" || !route) continue;
    const key = `${route.method.toUpperCase()} ${route.path.replace(/\{(\w+)\}/g, ":$1")}`;
    const security = route.security;
    if (security === undefined) table.set(key, "admin");
    else if (security.length === 0) table.set(key, null);
    else if (!security.some((s) => BEARER in s)) table.set(key, null); // another scheme (Basic): not ours
    else {
      const anyOf = security.filter((s) => BEARER in s).map((s) => (s[BEARER][0] as Scope | undefined) ?? "admin");
      table.set(key, anyOf.length === 1 ? anyOf[0] : anyOf);
    }
  }
  return table;
}
