/**
 * Errors with an HTTP meaning, and the one place that turns any error into an RFC 9457 problem
 * (`problemOf`, called by the app's root `onError` in `mod.ts`). Routes and middleware throw;
 * none maps errors itself.
 *
 * @example
 * ```ts
 * import { NotFound } from "./errors.ts";
 * const id = "t-1";
 * throw new NotFound(`No task '${id}'; GET /tasks lists the tasks there are`); // 404 problem
 * ```
 *
 * @module
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ClientDisconnected, RequestBodyTimeout } from "../lib/runtime/mod.ts";
import { StoreUnavailableError } from "../lib/store/mod.ts";
import { parseTraceparent } from "../lib/tracing/mod.ts";
import { TaskInputError, TaskQuotaError } from "../lib/tasks/mod.ts";
import { PipelineInputError } from "../lib/pipelines/mod.ts";

/** One invalid field of a 422. */
export interface FieldError {
  readonly field: string;
  readonly message: string;
}

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  421: "Misdirected Request",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** What a problem is made of besides its status and detail. */
export interface ProblemExtra {
  readonly errors?: readonly FieldError[];
  readonly headers?: Record<string, string>;
}

/**
 * An error that is a problem as it stands: its status, `message` as the detail, the fields of a
 * 422 and response headers. A Hono `HTTPException`, so Hono's own tools treat it as one.
 */
export class ProblemException extends HTTPException {
  readonly errors?: readonly FieldError[];
  readonly headers: Record<string, string>;
  constructor(status: ContentfulStatusCode, detail: string, extra: ProblemExtra & { cause?: unknown } = {}) {
    super(status, { message: detail, cause: extra.cause });
    this.name = "ProblemException";
    this.errors = extra.errors;
    this.headers = extra.headers ?? {};
  }
}

/** 404: nothing there. */
export class NotFound extends ProblemException {
  constructor(detail: string) {
    super(404, detail);
    this.name = "NotFound";
  }
}

/** 405: the path exists, not with this method; `allow` lists those it has. */
export class MethodNotAllowed extends ProblemException {
  constructor(detail: string, allow: readonly string[]) {
    super(405, detail, { headers: { allow: allow.join(", ") } });
    this.name = "MethodNotAllowed";
  }
}

/** 409: the request is fine, the state of things is not (a task not waiting, a key used otherwise). */
export class Conflict extends ProblemException {
  constructor(detail: string, headers?: Record<string, string>) {
    super(409, detail, { headers });
    this.name = "Conflict";
  }
}

/** 413: the body is over the limit. */
export class TooLarge extends ProblemException {
  constructor(detail: string) {
    super(413, detail);
    this.name = "TooLarge";
  }
}

/** 415: the body is not of a type the route reads. */
export class UnsupportedMediaType extends ProblemException {
  constructor(detail: string) {
    super(415, detail);
    this.name = "UnsupportedMediaType";
  }
}

/** 422: invalid input, each field named. */
export class InvalidInput extends ProblemException {
  constructor(detail: string, errors: readonly FieldError[]) {
    super(422, detail, { errors });
    this.name = "InvalidInput";
  }
}

/**
 * 503 while the process drains (SIGTERM): it takes no new work or streams, and `Retry-After`
 * (`DRAIN_RETRY_MS` in whole seconds, rounded up) says when to ask again, by then of another process.
 */
export class Draining extends ProblemException {
  readonly retryAfterSeconds: number;
  constructor(what: string, retryMs: number) {
    const seconds = Math.max(1, Math.ceil(retryMs / 1000));
    super(
      503,
      `This server is shutting down and takes no new ${what}; retry in ${seconds} s ` +
        "(the load balancer sends the retry to another server)",
      { headers: { "retry-after": String(seconds) } },
    );
    this.name = "Draining";
    this.retryAfterSeconds = seconds;
  }
}

/** How `onError` answers an error: the problem, and whether it is the client's doing (no error log line). */
export interface ProblemOf extends ProblemExtra {
  readonly status: ContentfulStatusCode;
  readonly detail: string;
  /** `error`: a server failure, logged with its stack; `debug`: the client's doing; `none`: an answer like any other. */
  readonly log: "error" | "debug" | "none";
}

/**
 * The problem an error stands for — the service's one error mapping: typed errors keep their
 * status; a store that does not answer is a 503 with `Retry-After`; invalid task or pipeline
 * input (a request past a tree limit among it) a 422; a tenant over a quota a 429 with `Retry-After`; Hono's own exceptions (a malformed JSON body, an unsupported type) their status
 * in our words; a body that timed out a 408; anything else a 500 that shows no internals.
 */
export function problemOf(error: Error, c: Context): ProblemOf {
  if (error instanceof ProblemException) {
    const { errors, headers } = error;
    return { status: error.status as ContentfulStatusCode, detail: error.message, errors, headers, log: "none" };
  }
  if (error instanceof StoreUnavailableError) {
    return {
      status: 503,
      detail: `The store did not answer: ${error.message}. Try again shortly`,
      headers: { "retry-after": "1" },
      log: "none",
    };
  }
  if (error instanceof TaskInputError || error instanceof PipelineInputError) {
    return { status: 422, detail: error.message, errors: [...error.errors], log: "none" };
  }
  if (error instanceof TaskQuotaError) {
    return {
      status: 429,
      detail: error.message,
      headers: { "retry-after": String(error.retryAfterSeconds) },
      log: "none",
    };
  }
  if (error instanceof RequestBodyTimeout || error instanceof ClientDisconnected) {
    const status = error instanceof RequestBodyTimeout ? 408 : 400;
    return { status, detail: error.message, headers: { connection: "close" }, log: "debug" };
  }
  if (error instanceof HTTPException) {
    if (error.status === 415) return { status: 415, detail: unsupportedType(c), log: "none" };
    if (error.status === 400 && /JSON/.test(error.message)) {
      return {
        status: 400,
        detail: `The request body is not valid JSON (${error.message}); send a JSON object`,
        log: "none",
      };
    }
    if (error.status < 500) return { status: error.status as ContentfulStatusCode, detail: error.message, log: "none" };
  }
  return {
    status: 500,
    detail: "The server failed to handle the request; quote the traceId when reporting it",
    log: "error",
  };
}

/** The detail of a 415, naming the type the body came with and the one to send. */
export function unsupportedType(c: Context): string {
  const type = c.req.header("content-type")?.split(";")[0].trim().toLowerCase();
  const send = "send JSON with Content-Type: application/json (curl: -H 'content-type: application/json')";
  if (!type) return `The body has no Content-Type; this route reads JSON: ${send}`;
  return `Content-Type ${type} is not accepted here, even for a body that is JSON; ${send}`;
}

/**
 * An RFC 9457 problem-details response (`application/problem+json`) carrying the request's
 * `traceId`, which also appears in the server's log line for it.
 */
export function problem(
  c: Context,
  status: ContentfulStatusCode,
  detail: string,
  extra: ProblemExtra = {},
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

/** The request's trace id: its span's, its `traceparent`'s, or one made on first use. */
export function traceId(c: Context): string {
  let id = c.get("traceId") as string | undefined;
  if (!id) {
    id = parseTraceparent(c.req.header("traceparent"))?.traceId ?? crypto.randomUUID().replaceAll("-", "");
    c.set("traceId", id);
  }
  return id;
}
