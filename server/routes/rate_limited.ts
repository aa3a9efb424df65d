import type { MiddlewareHandler } from "hono";
import { type Store, type StoreOutage, StoreUnavailableError } from "../../lib/store/mod.ts";
import { problem, traceId } from "../errors.ts";
import { setRouteTemplate } from "../route_template.ts";

/** Limits of the rate-limited routes; the defaults are the specification's. */
export interface RateLimitConfig {
  /** Canonical paths; requests match them in any letter case. */
  readonly routes: readonly string[];
  readonly limit: number;
  readonly windowMs: number;
}

/** What an answer says of a store that does not answer, where it names nothing of the inside. */
export const NO_STORE_ANSWER = "the store does not answer (the server's log says why)";

export const DEFAULT_RATE_LIMIT: RateLimitConfig = {
  routes: ["/api/RateLimited/sliding"],
  limit: 10,
  windowMs: 30_000,
};

/**
 * The longest identity counted, in UTF-8 bytes. Longer ones are answered 401 like any other
 * unusable header: real API keys are far shorter, and each tracked caller costs memory (in
 * this process or in Redis) in proportion to its identity.
 */
export const MAX_IDENTITY_BYTES = 256;

/**
 * The caller identity of a Basic Authorization header: the decoded value (UTF-8) before the
 * first `:` (the whole value when it has none). Undefined — answered 401 with no body — when
 * the header is missing, not Basic, has an empty parameter, is not valid base64, or names an
 * empty identity or one over {@link MAX_IDENTITY_BYTES}.
 */
export function basicIdentity(header: string | undefined): string | undefined {
  const match = header === undefined ? null : BASIC.exec(header);
  if (!match) return undefined;
  let binary: string;
  try {
    binary = atob(match[1]); // rejects characters outside base64 and bad lengths
  } catch {
    return undefined;
  }
  // ":" is one byte in UTF-8 too, so the identity's size is known before decoding it.
  const colonAt = binary.indexOf(":");
  if ((colonAt === -1 ? binary.length : colonAt) > MAX_IDENTITY_BYTES) return undefined;
  let decoded: string | undefined = binary;
  for (let i = 0; i < binary.length; i++) {
    if (binary.charCodeAt(i) > 0x7f) {
      decoded = decodeUtf8(binary);
      break;
    }
  }
  if (decoded === undefined) return undefined;
  const colon = decoded.indexOf(":");
  const identity = colon === -1 ? decoded : decoded.slice(0, colon);
  return identity === "" ? undefined : identity;
}

const BASIC = /^Basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i;
const UTF8 = new TextDecoder("utf-8", { fatal: true });

function decodeUtf8(binary: string): string | undefined {
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * What a 401 asks for: Basic credentials (RFC 7617), the only kind this route reads — its caller
 * is the user part of them, and a bearer token of the service's API names no caller here.
 */
const BASIC_CHALLENGE = 'Basic realm="storectl rate-limited route", charset="UTF-8"';

/**
 * The specification's sliding-window route: at most `limit` requests per caller per sliding window,
 * counted under `<canonical path>:<identity>`. 200 with an empty body, or 429 with an RFC 9457
 * problem (the specification's `status` and `traceId` among its fields) and `Retry-After`; both carry
 * IETF `RateLimit-Policy` / `RateLimit` headers. HEAD answers without spending budget. A store that does not answer gives 503:
 * the limit fails closed, and with `tellCause` the detail carries a `StoreUnavailableError`'s
 * message (which names the store's address and never a password); other errors, and that one
 * without `tellCause` (the route answers anyone: a service with tokens tells strangers nothing
 * of its inside), stay in the log, which `outage` keeps to one line per outage.
 */
export function rateLimitedRoutes(
  store: Store,
  config: RateLimitConfig,
  outage: StoreOutage,
  tellCause = true,
  count: (decision: "allowed" | "refused" | "store_error") => void = () => {},
): MiddlewareHandler {
  const canonical = new Map(config.routes.map((route) => [route.toLowerCase(), route]));
  const windowSeconds = Math.ceil(config.windowMs / 1000);
  const policy = `"sliding";q=${config.limit};w=${windowSeconds}`;
  return async (c, next) => {
    const route = canonical.get(c.req.path.toLowerCase());
    if (!route) return await next();
    setRouteTemplate(c, route); // answered here, not by a route: metrics and logs name it so
    const method = c.req.method;
    if (method === "HEAD") return c.body(null, 200, { "RateLimit-Policy": policy });
    if (method !== "GET" && method !== "POST") {
      return problem(c, 405, `${method} is not allowed here; use GET or POST`, {
        headers: { allow: "GET, POST, HEAD" },
      });
    }
    const identity = basicIdentity(c.req.header("authorization"));
    if (identity === undefined) return c.body(null, 401, { "www-authenticate": BASIC_CHALLENGE });
    let decision;
    try {
      decision = await store.hitSlidingWindow(`${route}:${identity}`, config.limit, config.windowMs);
    } catch (error) {
      outage.failed(`traceId=${traceId(c)} path=${c.req.path}`, error as Error);
      count("store_error");
      const why = tellCause && error instanceof StoreUnavailableError ? error.message : NO_STORE_ANSWER;
      return problem(c, 503, `The rate limit cannot be checked: ${why}. Try again shortly`, {
        headers: { "retry-after": "1" },
      });
    }
    outage.answered();
    count(decision.allowed ? "allowed" : "refused");
    const resetSeconds = Math.ceil(decision.resetMs / 1000);
    const headers = {
      "RateLimit-Policy": policy,
      "RateLimit": `"sliding";r=${Math.max(0, config.limit - decision.count)};t=${resetSeconds}`,
    };
    // Built directly, not with c.body(): Hono would copy the headers through a Headers object
    // first (~1 µs per request). A plain object is also @hono/node-server's fast path.
    if (decision.allowed) return new Response(null, { status: 200, headers });
    return problem(c, 429, `At most ${config.limit} requests per ${windowSeconds} s; retry after ${resetSeconds} s`, {
      headers: { ...headers, "retry-after": String(Math.max(1, resetSeconds)) },
    });
  };
}
