import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Json } from "../fixture.ts";
import type { Quirk } from "../quirks.ts";

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  405: "Method Not Allowed",
  413: "Payload Too Large",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** The cloud API's JSON error body. */
export function cloudErrorBody(status: number, message: string, path: string): Json {
  return { timestamp: new Date().toISOString(), status, error: STATUS_TEXT[status] ?? "Error", message, path };
}

/** Answers a cloud error in the API's JSON format. */
export type Fail = (c: Context, status: ContentfulStatusCode, message: string) => Response;

/** The page the real API's nginx answers a request without valid keys with (the `html-401` quirk). */
const NGINX_401 = `<html>
<head><title>401 Authorization Required</title></head>
<body>
<center><h1>401 Authorization Required</h1></center>
<hr><center>nginx</center>
</body>
</html>
`;

/** Settings the guards read. */
export interface GuardOptions {
  readonly apiKey: string;
  readonly apiSecret: string;
  /** Requests allowed per minute; 0 means no limit. */
  readonly rateLimitPerMinute: number;
  readonly quirks: ReadonlySet<Quirk>;
  readonly now: () => number;
}

/** Checks the key and secret headers: a JSON 401, or nginx's HTML page under `html-401`. */
export function authenticate(options: GuardOptions, fail: Fail) {
  return async (c: Context, next: () => Promise<void>) => {
    const key = c.req.header("x-api-key");
    const secret = c.req.header("x-api-secret-key");
    const problem = !key || !secret
      ? "Missing x-api-key or x-api-secret-key header"
      : key !== options.apiKey || secret !== options.apiSecret
      ? "Invalid API key or secret"
      : undefined;
    if (!problem) return await next();
    if (options.quirks.has("html-401")) return c.html(NGINX_401, 401);
    return fail(c, 401, problem);
  };
}

/** A fixed one-minute window per key; past it 429 with `Retry-After`, plain text under `text-429`. */
export function rateLimit(options: GuardOptions, fail: Fail) {
  let window = -1;
  let used = 0;
  return async (c: Context, next: () => Promise<void>) => {
    if (options.rateLimitPerMinute > 0) {
      const now = options.now();
      if (Math.floor(now / 60_000) !== window) {
        window = Math.floor(now / 60_000);
        used = 0;
      }
      if (++used > options.rateLimitPerMinute) {
        c.header("retry-after", String(Math.ceil(((window + 1) * 60_000 - now) / 1000)));
        if (options.quirks.has("text-429")) return c.text("Too Many Requests", 429);
        return fail(c, 429, `Rate limit of ${options.rateLimitPerMinute} requests per minute exceeded`);
      }
    }
    return await next();
  };
}
