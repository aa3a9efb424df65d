/**
 * A2A's errors, and how each binding carries them: JSON-RPC error objects with A2A's codes, and
 * HTTP+JSON `google.rpc.Status` bodies with an HTTP status. Both carry a `google.rpc.ErrorInfo`
 * naming the reason, which is what the official client reads back into its error classes.
 *
 * Conditions of the transport itself stay HTTP answers on both bindings, as on the rest of the
 * service: 401 and 403 (tokens), 413, 415, 429 (quotas, with `Retry-After`) and 503 (store).
 * A process that drains (SIGTERM) answers 503 with `Retry-After` too, its body in the binding's
 * error form ({@link drainingRpcError}, {@link drainingRestError}).
 *
 * @module
 */
import type { Draining } from "../errors.ts";

/** The A2A error kinds this service raises, with their JSON-RPC code and HTTP+JSON status. */
const KINDS = {
  TASK_NOT_FOUND: { code: -32001, http: 404, status: "NOT_FOUND" },
  TASK_NOT_CANCELABLE: { code: -32002, http: 400, status: "FAILED_PRECONDITION" },
  PUSH_NOTIFICATION_NOT_SUPPORTED: { code: -32003, http: 400, status: "FAILED_PRECONDITION" },
  UNSUPPORTED_OPERATION: { code: -32004, http: 400, status: "FAILED_PRECONDITION" },
  CONTENT_TYPE_NOT_SUPPORTED: { code: -32005, http: 400, status: "INVALID_ARGUMENT" },
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: { code: -32007, http: 400, status: "FAILED_PRECONDITION" },
  VERSION_NOT_SUPPORTED: { code: -32009, http: 400, status: "FAILED_PRECONDITION" },
  INVALID_PARAMS: { code: -32602, http: 400, status: "INVALID_ARGUMENT" },
} as const;

/** An A2A error reason. */
export type A2AReason = keyof typeof KINDS;

/** JSON-RPC's own errors, for requests that are not JSON-RPC at all. */
export const JSON_RPC = { PARSE_ERROR: -32700, INVALID_REQUEST: -32600, METHOD_NOT_FOUND: -32601 } as const;

/** An error a client caused, named by an A2A reason; `message` says what was wrong and what to do. */
export class A2AError extends Error {
  readonly reason: A2AReason;
  constructor(reason: A2AReason, message: string) {
    super(message);
    this.name = "A2AError";
    this.reason = reason;
  }
}

const errorInfo = (reason: A2AReason) => ({
  "@type": "type.googleapis.com/google.rpc.ErrorInfo",
  reason,
  domain: "a2a-protocol.org",
});

/** The error object of a JSON-RPC response. */
export function jsonRpcError(error: A2AError): { code: number; message: string; data: unknown[] } {
  return { code: KINDS[error.reason].code, message: error.message, data: [errorInfo(error.reason)] };
}

/** The HTTP status and body of an HTTP+JSON error answer. */
export function restError(error: A2AError): { http: 400 | 404; body: { error: Record<string, unknown> } } {
  const kind = KINDS[error.reason];
  return {
    http: kind.http,
    body: {
      error: { code: kind.http, status: kind.status, message: error.message, details: [errorInfo(error.reason)] },
    },
  };
}

/** The one version of A2A spoken here; a request naming another in `A2A-Version` is refused. */
export const A2A_VERSION = "1.0";

/** Refuses an `A2A-Version` other than ours (none at all is taken as ours). */
export function checkVersion(header: string | undefined): void {
  const asked = header?.trim();
  if (!asked || asked === A2A_VERSION || asked === "1") return;
  throw new A2AError(
    "VERSION_NOT_SUPPORTED",
    `A2A-Version ${asked} is not supported; this agent speaks A2A ${A2A_VERSION}`,
  );
}

/** JSON-RPC's implementation-defined server error: A2A has no code for a server that takes no new calls. */
export const SERVER_UNAVAILABLE = -32000;

const retryInfo = (error: Draining) => ({
  "@type": "type.googleapis.com/google.rpc.RetryInfo",
  retryDelay: `${error.retryAfterSeconds}s`,
});

/** The JSON-RPC error object of a call refused while draining (sent with 503 and `Retry-After`). */
export function drainingRpcError(error: Draining): { code: number; message: string; data: unknown[] } {
  return { code: SERVER_UNAVAILABLE, message: error.message, data: [retryInfo(error)] };
}

/** The `google.rpc.Status` body of a call refused while draining (sent with 503 and `Retry-After`). */
export function drainingRestError(error: Draining): { error: Record<string, unknown> } {
  return { error: { code: 503, status: "UNAVAILABLE", message: error.message, details: [retryInfo(error)] } };
}
