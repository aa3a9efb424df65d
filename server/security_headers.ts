/**
 * The headers that keep browsers from misusing the service's answers: no MIME sniffing, no
 * `Referer` sent on, no framing (the console holds a token and has Delete and Clear buttons), and
 * a Content-Security-Policy. The API's answers are data, never a page, so their policy lets them
 * load nothing; the console and `/docs` set their own, which this middleware leaves in place.
 * Outermost, it is also where each answer, however it was made, is told to the service's
 * observers (metrics, the access log): one layer for all of them, as each costs a promise.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { securityHeaders } from "./security_headers.ts";
 * const app = new Hono();
 * app.use("*", securityHeaders());
 * ```
 *
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";

/** A Content-Security-Policy from its directives. */
export const policy = (directives: Readonly<Record<string, readonly string[]>>): string =>
  Object.entries(directives).map(([name, sources]) => [name, ...sources].join(" ")).join("; ");

/** The policy of everything but the pages: load nothing, be framed by no one. */
export const API_CSP: string = policy({ "default-src": ["'none'"], "frame-ancestors": ["'none'"] });

/**
 * A page's policy: its own scripts (and `inlineScripts`, by hash), stylesheets, images (and
 * `data:` ones) and API; no plugin, no `<base>`, no form posted anywhere, no framing.
 */
export function pagePolicy(inlineScripts: readonly string[] = []): string {
  return policy({
    "default-src": ["'none'"],
    "script-src": ["'self'", ...inlineScripts],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "base-uri": ["'none'"],
    "form-action": ["'none'"],
    "frame-ancestors": ["'none'"],
  });
}

/** The CSP source of an inline script: `'sha256-<base64>'`. */
export async function scriptHash(script: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(script)));
  return `'sha256-${btoa(String.fromCharCode(...digest))}'`;
}

/** The headers of every answer (pages replace the policy with their own). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY", // for browsers that predate frame-ancestors
  "content-security-policy": API_CSP,
};
const FIXED = Object.entries(SECURITY_HEADERS).filter(([name]) => name !== "content-security-policy");

/**
 * Sets the security headers on every answer, whatever made it (a route, `onError`, a middleware
 * that answered early, an event stream); the CSP only where the answer has none of its own. Set
 * on the answer once it is made: preparing them on the context would make every answer copy a
 * `Headers` object, which costs more.
 */
/** Told of each answer once it is made: `started` is `performance.now()` when the request came. */
export type AnswerObserver = (c: Context, started: number) => void;

/** Sets the headers on every answer, then tells each of `observers` of it. */
export function securityHeaders(observers: readonly AnswerObserver[] = []): MiddlewareHandler {
  return async (c, next) => {
    const started = observers.length > 0 ? performance.now() : 0;
    await next();
    const headers = c.res.headers;
    for (const [name, value] of FIXED) headers.set(name, value);
    if (!headers.has("content-security-policy")) headers.set("content-security-policy", API_CSP);
    for (const observe of observers) observe(c, started);
  };
}
