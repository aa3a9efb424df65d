/**
 * The service's log lines: text for people (`storectl server: <message>`, as always), or with
 * `LOG_FORMAT=json` one JSON object per line — `time`, `level`, `message` and the line's fields
 * (an access line: `method`, `route`, `status`, `duration_ms`, `bytes`, `request_id`, `trace_id`,
 * `span_id`, `tenant`); a line written inside a span (a task's run, a request) carries its
 * `trace_id` and `span_id`. Nothing that could be a secret is ever a field: no header but a
 * plain `X-Request-Id`, no query string, no body.
 *
 * @module
 */
import type { Context } from "hono";
import type { AnswerObserver } from "./security_headers.ts";
import { callerOf } from "./auth/principal.ts";
import { traceId } from "./errors.ts";
import { routeTemplate } from "./route_template.ts";
import { activeSpanIds } from "../lib/tracing/mod.ts";

export type LogFormat = "text" | "json";
export type LogLevel = "debug" | "info" | "warn" | "error";

/** A line's fields besides its message; `level` defaults from the message. */
export type LogFields = { readonly level?: LogLevel } & Record<string, unknown>;

/** Writes one log line. */
export type Log = (message: string, fields?: LogFields) => void;

/**
 * A log writing each line through `write`, as text after `prefix` or as JSON.
 *
 * @example
 * ```ts
 * const lines: string[] = [];
 * const log = formatLog("json", (line) => lines.push(line), "", () => 0);
 * log("store unreachable tasks: …");
 * lines[0]; // '{"time":"1970-01-01T00:00:00.000Z","level":"warn","message":"store unreachable tasks: …"}'
 * ```
 */
export function formatLog(format: LogFormat, write: (line: string) => void, prefix = "", now = Date.now): Log {
  if (format === "text") return (message) => write(`${prefix}${message}`);
  return (message, fields = {}) => {
    const { level = levelOf(message), ...rest } = fields;
    write(JSON.stringify({ time: new Date(now()).toISOString(), level, message, ...activeSpanIds(), ...rest }));
  };
}

/** The level of a line that does not say: errors and outages by their words, the rest info. */
function levelOf(message: string): LogLevel {
  if (message.startsWith("error ")) return "error";
  if (/^store unreachable|cannot|refused|not reloaded/.test(message)) return "warn";
  return "info";
}

/**
 * One access line per request (`LOG_FORMAT=json`): method, route template (never the raw path or
 * its query, where a stream ticket may be), status, duration, response bytes when known, the
 * request's trace id and the caller's tenant.
 */
export function accessLog(log: Log): AnswerObserver {
  return (c, started) => {
    const bytes = c.res.headers.get("content-length");
    const tenant = callerOf(c)?.tenant;
    log("request", {
      method: c.req.method,
      route: routeTemplate(c),
      status: c.res.status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
      ...(bytes !== null && { bytes: Number(bytes) }),
      request_id: requestId(c),
      trace_id: traceId(c),
      ...(c.get("spanId") && { span_id: c.get("spanId") }),
      ...(tenant !== undefined && { tenant }),
    });
  };
}

/** A request id as a caller may set one: letters, digits, `.`, `_`, `-`, at most 128 (nothing a log could misread). */
const PLAIN_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The request's id in logs: its `X-Request-Id` when that is a plain id (a proxy's, a caller's), else its trace id. */
function requestId(c: Context): string {
  const given = c.req.header("x-request-id");
  return given !== undefined && PLAIN_ID.test(given) ? given : traceId(c);
}
