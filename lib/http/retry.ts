/** How retries are paced. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly retries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the request fails at once. */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 3,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

import { StoreCtlError } from "../errors/mod.ts";

const SAFE_METHODS = ["GET", "HEAD", "OPTIONS", "PUT", "DELETE"];
/** Statuses a request is repeated on at once (the CLI contract): rate limited, a gateway or server busy or down. */
const RETRY_STATUSES = [429, 502, 503, 504];
/** Statuses worth trying again later, when a whole operation is repeated at a pace: a 500 too. */
const TRANSIENT_STATUSES = [...RETRY_STATUSES, 500];

/** What went wrong with one attempt. */
export type Outcome =
  | { readonly kind: "status"; readonly status: number; readonly retryAfter?: string | null }
  | { readonly kind: "connect" } // nothing was sent: refused, DNS
  | { readonly kind: "reset" }; // the connection broke, maybe after sending

/**
 * Whether an attempt may be repeated: requests safe to repeat (GET, PUT, DELETE…) on 429, 502,
 * 503, 504 and broken connections; any request when the connection failed before sending.
 */
export function isRetryable(method: string, outcome: Outcome): boolean {
  if (outcome.kind === "connect") return true;
  if (!SAFE_METHODS.includes(method.toUpperCase())) return false;
  return outcome.kind === "reset" || RETRY_STATUSES.includes(outcome.status);
}

/**
 * Whether a failure may pass if the same thing is tried again later: a network failure, a
 * timeout, 429 or a 5xx the server may recover from (500, 502, 503, 504). The rule of every
 * caller that repeats a whole operation at a pace (polling a task, sending an upload part
 * again); the HTTP client itself repeats a request at once only on the contract's narrower set.
 *
 * @example
 * ```ts
 * import { StoreCtlError } from "../errors/mod.ts";
 * import { isTransient } from "./retry.ts";
 * isTransient(new StoreCtlError("api", "HTTP 503", { status: 503 })); // true
 * isTransient(new StoreCtlError("not_found", "Not found", { status: 404 })); // false
 * ```
 */
export function isTransient(error: unknown): error is StoreCtlError {
  if (!(error instanceof StoreCtlError)) return false;
  if (error.code === "network" || error.code === "timeout") return true;
  return error.status !== undefined && TRANSIENT_STATUSES.includes(error.status);
}

/**
 * Milliseconds to wait before retry number `attempt` (0-based): the server's `Retry-After` when
 * given (seconds or an HTTP date), else exponential backoff with "equal" jitter (between half
 * the step and the whole step, so a retry never comes at once). Undefined means
 * do not retry (the server asked for longer than `maxRetryAfterMs`).
 */
export function retryDelay(
  attempt: number,
  retryAfter: string | null | undefined,
  policy: RetryPolicy,
  now: number,
  random: () => number,
): number | undefined {
  if (retryAfter) {
    const seconds = Number(retryAfter);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - now;
    if (Number.isFinite(ms)) return ms > policy.maxRetryAfterMs ? undefined : Math.max(0, ms);
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
