/**
 * The authentication middleware: who the caller is (a bearer token, or a stream ticket), and
 * whether they hold the scope of the route they ask for. It sets the caller on the context for
 * {@link callerOf}; with no tokens configured the service runs open and it lets everything by.
 *
 * Answers: no or unknown token → 401 with `WWW-Authenticate: Bearer`; a token without the
 * route's scope → 403 naming the scope; a token in the URL → 401 saying to use a ticket.
 *
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { ProblemException } from "../errors.ts";
import { type Need, OPEN_PATHS, satisfies, type Scope } from "./scopes.ts";
import type { Tickets } from "./tickets.ts";
import type { Principal, TokenSet } from "./tokens.ts";

export type { Principal } from "./tokens.ts";

const PRINCIPAL = "principal";
type RouterRoute = ReturnType<typeof matchedRoutes>[number];

/**
 * The caller of a request: the principal of its token or ticket, or `undefined` when the
 * service runs open (no `SERVICE_TOKENS_FILE`) or the route is an open one.
 *
 * @example
 * ```ts ignore
 * const tenant = callerOf(c)?.tenant; // undefined: running open
 * ```
 */
export function callerOf(c: Context): Principal | undefined {
  return c.get(PRINCIPAL as never) as Principal | undefined;
}

/** 401: no usable credentials. */
export class Unauthorized extends ProblemException {
  constructor(detail: string, error?: "invalid_request" | "invalid_token") {
    super(401, detail, {
      headers: { "www-authenticate": `Bearer realm="storectl"${error ? `, error="${error}"` : ""}` },
    });
    this.name = "Unauthorized";
  }
}

/** 403: a known caller without the scope the route needs. */
export class Forbidden extends ProblemException {
  constructor(detail: string, scope: string) {
    super(403, detail, {
      headers: { "www-authenticate": `Bearer realm="storectl", error="insufficient_scope", scope="${scope}"` },
    });
    this.name = "Forbidden";
  }
}

/** Query parameters that carry a token by other services' conventions: refused, never read. */
const TOKEN_PARAMS = ["access_token", "token", "bearer", "api_key", "apikey", "auth", "authorization"];

/** What the middleware works with. */
export interface AuthOptions {
  /** The configured tokens; none: the service runs open. */
  readonly tokens?: TokenSet;
  readonly tickets: Tickets;
  /** What the matched route needs, by `"GET /tasks/:task_id"`. */
  readonly scopes: () => ReadonlyMap<string, Need>;
}

/**
 * Authenticates every request but those to open routes. A path no route serves needs a token
 * too (so that the 404 and 405 answers do not map the API for strangers).
 */
export function authenticate(options: AuthOptions): MiddlewareHandler {
  const { tokens, tickets } = options;
  if (!tokens) return (_c, next) => next();
  // What each route needs, worked out on its first request (this runs on every request).
  const needs = new WeakMap<RouterRoute, Need>();
  const needOf = (route: RouterRoute): Need => {
    let need = needs.get(route);
    if (need === undefined) {
      // A route outside the OpenAPI registry (no declaration to read) needs admin: closed, not open.
      const declared = options.scopes().get(`${route.method} ${route.path}`);
      need = declared !== undefined ? declared : OPEN_PATHS.some((p) => p.test(route.path)) ? null : "admin";
      needs.set(route, need);
    }
    return need;
  };
  // Not async: a request with a token goes through without a promise of its own.
  return (c, next) => {
    const route = matchedRoutes(c).find((r) => r.method !== "ALL");
    const need = route && needOf(route);
    if (need === null) return next();
    // Most requests have no query: no URL to parse then.
    const query = c.req.url.includes("?") ? new URL(c.req.url).searchParams : undefined;
    const inUrl = query && TOKEN_PARAMS.find((p) => query.has(p));
    if (inUrl) {
      throw new Unauthorized(
        `A token is never accepted in the URL (?${inUrl}=): send it as Authorization: Bearer <token>; ` +
          "a browser EventSource gets a ticket from POST /stream-tickets and opens the stream with ?ticket=",
        "invalid_request",
      );
    }
    const header = c.req.header("authorization");
    const ticket = header === undefined ? query?.get("ticket") : undefined;
    if (ticket !== undefined && ticket !== null) {
      return tickets.redeem(ticket, c.req.method, c.req.path, query!).then((redeemed) => {
        if ("refused" in redeemed) throw new Unauthorized(redeemed.refused, "invalid_token");
        return admit(c, redeemed.principal, need, next);
      });
    }
    return admit(c, fromHeader(header, tokens), need, next);
  };
}

/** Lets `principal` through to the route when it holds `need`. */
function admit(c: Context, principal: Principal, need: Need | undefined, next: () => Promise<void>): Promise<void> {
  if (need) refuseWithout(principal, need, `${c.req.method} ${c.req.path}`);
  c.set(PRINCIPAL as never, principal as never);
  return next();
}

/**
 * Refuses (403) a caller whose token lacks `need` for `what`: for a route that serves calls of
 * more than one scope (A2A's JSON-RPC endpoint), once it knows the call. Running open, nothing is refused.
 */
export function requireScope(c: Context, need: Scope, what: string): void {
  const principal = callerOf(c);
  if (principal) refuseWithout(principal, need, what);
}

/** Refuses (403) `principal` unless it holds `need` for `what` (a route, a stream, a call). */
export function refuseWithout(principal: Principal, need: Scope | readonly Scope[], what: string): void {
  if (satisfies(principal.scopes, need)) return;
  const named = typeof need === "string" ? `'${need}'` : need.map((scope) => `'${scope}'`).join(" or ");
  throw new Forbidden(
    `The token '${principal.name}' lacks the scope ${named} that ${what} needs ` +
      `(it has ${principal.scopes.join(", ")}); use a token with ${named} or 'admin'`,
    typeof need === "string" ? need : need.join(" "),
  );
}

/** The principal of an `Authorization: Bearer` header; a 401 for none, another scheme or an unknown token. */
function fromHeader(header: string | undefined, tokens: TokenSet): Principal {
  if (header === undefined) {
    throw new Unauthorized(
      "This route needs a token: send Authorization: Bearer <token> with a token of the server's " +
        "SERVICE_TOKENS_FILE (an EventSource uses ?ticket= from POST /stream-tickets)",
    );
  }
  const match = /^Bearer +(\S+) *$/i.exec(header);
  if (!match) {
    const scheme = header.trim().split(/\s+/)[0] || "(empty)";
    throw new Unauthorized(
      `The Authorization header must be 'Bearer <token>', not the ${scheme} scheme ` +
        "(Basic is for /api/RateLimited/sliding only)",
      "invalid_request",
    );
  }
  const principal = tokens.lookup(match[1]);
  if (!principal) {
    throw new Unauthorized(
      "The bearer token is not one this server knows: check it, or ask for one (its SHA-256 must be in " +
        "SERVICE_TOKENS_FILE)",
      "invalid_token",
    );
  }
  return principal;
}
