/**
 * Errors that callers branch on. Each has a stable `code`; the CLI maps codes to exit codes
 * and prints `message` and `tips`. Messages say what failed, the value, and what to do next.
 *
 * @example
 * ```ts
 * throw new StoreCtlError("config", "Profile 'prod' not found", { tips: ["Existing profiles: lab, staging"] });
 * ```
 *
 * @module
 */

/** Stable error codes, one per kind of failure a user can act on. */
export type ErrorCode =
  | "usage"
  | "config"
  | "auth"
  | "not_found"
  | "validation"
  | "conflict"
  | "api"
  | "rate_limited"
  | "network"
  | "tls"
  | "timeout"
  | "cancelled"
  | "filesystem"
  | "damaged"
  | "internal";

/**
 * Whether trying the same thing again later may succeed: a rate limit, a network failure, a
 * timeout, or the server's own failure (a 5xx); not a mistake, a refusal or a missing thing.
 *
 * @example
 * ```ts
 * retryable("api", 503); // true
 * retryable("validation", 422); // false
 * ```
 */
export function retryable(code: ErrorCode, status?: number): boolean {
  return code === "rate_limited" || code === "network" || code === "timeout" ||
    (code === "api" && status !== undefined && status >= 500);
}

/** What a `StoreCtlError` is built with besides its code and message. */
export interface StoreCtlErrorOptions {
  readonly status?: number;
  readonly tips?: readonly string[];
  readonly cause?: unknown;
  /**
   * A finer, stable name for the situation (`profile_not_found`), with the `details` a front end
   * needs to add its own tips (the CLI names its flags and commands; `lib/` does not).
   */
  readonly reason?: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

/** A failure with a stable code, an HTTP status when one was received, and tips. */
export class StoreCtlError extends Error {
  readonly code: ErrorCode;
  readonly status?: number;
  readonly tips: readonly string[];
  readonly reason?: string;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, options: StoreCtlErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "StoreCtlError";
    this.code = code;
    this.status = options.status;
    this.tips = options.tips ?? [];
    this.reason = options.reason;
    this.details = options.details ?? {};
  }
}

/**
 * Masks a secret as `abcd…wxyz`, so a user can tell keys apart; secrets under 16 characters
 * show nothing (`****`), since eight characters would be most of them.
 */
export function mask(secret: string): string {
  return secret.length >= 16 ? `${secret.slice(0, 4)}…${secret.slice(-4)}` : "****";
}
