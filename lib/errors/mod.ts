/**
 * Errors that callers branch on. Each has a stable `code`; the CLI maps codes to exit codes
 * and prints `message` and `tips`. Messages say what failed, the value, and what to do next.
 *
 * @example
 * ```ts
 * throw new StoreCtlError("config", "Profile 'prod' not found", { tips: ["ctl profile list"] });
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
  | "internal";

/** A failure with a stable code, an HTTP status when one was received, and tips. */
export class StoreCtlError extends Error {
  readonly code: ErrorCode;
  readonly status?: number;
  readonly tips: readonly string[];

  constructor(code: ErrorCode, message: string, options: { status?: number; tips?: string[]; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = "StoreCtlError";
    this.code = code;
    this.status = options.status;
    this.tips = options.tips ?? [];
  }
}

/**
 * Masks a secret as `abcd…wxyz`, so a user can tell keys apart; secrets under 16 characters
 * show nothing (`****`), since eight characters would be most of them.
 */
export function mask(secret: string): string {
  return secret.length >= 16 ? `${secret.slice(0, 4)}…${secret.slice(-4)}` : "****";
}
