/**
 * Refuses cross-site requests that change state. A browser sends a page's simple requests
 * (a form post, `fetch(url, {mode: "no-cors", body})`) to any site without asking first, and
 * CORS only keeps the page from reading the answer: the request has been carried out by then. So
 * a page of another origin could plant documents, start tasks or clear every document of a local
 * service. Browsers say where a request comes from (`Sec-Fetch-Site`, and `Origin` on every
 * request but GET and HEAD), which is what this reads — the rule of Go's `net/http`
 * `CrossOriginProtection`:
 *
 * 1. GET, HEAD and OPTIONS pass: they change nothing.
 * 2. `Sec-Fetch-Site: same-origin` or `none` (typed by the user) passes; any other value
 *    (`same-site`, `cross-site`) is refused unless its `Origin` is trusted (`CORS_ORIGINS`).
 * 3. Without `Sec-Fetch-Site` (an older browser, or no browser), no `Origin` passes (curl, `ctl`),
 *    nor does an `Origin` whose host is the request's own `Host`; another is refused unless trusted.
 *
 * It holds with tokens too: a bearer token is never sent by a browser on its own, so forged
 * requests cannot carry one, but the rate-limited route's Basic credentials can be, and one
 * rule for both modes is simpler to reason about.
 *
 * @module
 */
import type { Context } from "hono";
import { ProblemException } from "./errors.ts";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/** 403: a browser request from another site that would change state. */
export class CrossSiteRequest extends ProblemException {
  constructor(detail: string) {
    super(403, detail);
    this.name = "CrossSiteRequest";
  }
}

/** The check that throws a 403 for a state-changing request from an origin other than the service's own and `trusted`. */
export function crossSiteCheck(trusted: readonly string[]): (c: Context) => void {
  const trust = new Set(trusted);
  return (c) => {
    if (SAFE.has(c.req.method)) return;
    const origin = c.req.header("origin");
    const site = c.req.header("sec-fetch-site");
    if (site === "same-origin" || site === "none") return;
    if (site === undefined && (origin === undefined || sameHost(origin, c))) return;
    if (origin !== undefined && trust.has(origin)) return;
    throw new CrossSiteRequest(
      `${origin && origin !== "null" ? `A page of ${origin}` : "A page of another site"} may not ${c.req.method} ` +
        `${c.req.path} here: requests that change state are refused from other origins` +
        `${site ? ` (Sec-Fetch-Site: ${site})` : ""}, since any page could send them. ` +
        `If pages of ${origin && origin !== "null" ? origin : "that origin"} should call this service, add it to ` +
        "CORS_ORIGINS; other clients (curl, ctl) send no Origin and are not affected",
    );
  };
}

/** Whether `origin`'s host (and port) is the request's own. */
function sameHost(origin: string, c: Context): boolean {
  return URL.canParse(origin) && new URL(origin).host === new URL(c.req.url).host;
}
