import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** One invalid field of a 422. */
export interface FieldError {
  readonly field: string;
  readonly message: string;
}

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  413: "Content Too Large",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/**
 * An RFC 9457 problem-details response (`application/problem+json`) carrying the request's
 * `traceId`, which also appears in the server's log line for it.
 */
export function problem(
  c: Context,
  status: ContentfulStatusCode,
  detail: string,
  extra: { errors?: FieldError[]; headers?: Record<string, string> } = {},
): Response {
  const body = {
    type: "about:blank",
    title: TITLES[status] ?? "Error",
    status,
    detail,
    instance: c.req.path,
    traceId: traceId(c),
    ...(extra.errors && { errors: extra.errors }),
  };
  return c.body(JSON.stringify(body), status, { "content-type": "application/problem+json", ...extra.headers });
}

/** The request's trace id, made on first use. */
export function traceId(c: Context): string {
  let id = c.get("traceId") as string | undefined;
  if (!id) {
    id = crypto.randomUUID().replaceAll("-", "");
    c.set("traceId", id);
  }
  return id;
}
