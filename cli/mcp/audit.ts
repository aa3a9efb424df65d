/**
 * The audit log of `ctl mcp serve --audit <file>`: one JSON line per tool call — when, which
 * tool, its arguments with secrets masked, how it ended and how long it took.
 *
 * @module
 */

/** One call, as the audit log records it. */
export interface AuditEntry {
  readonly time: string;
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  /** `ok`, `error` (the command failed: `code` says how) or `refused` (by the policy). */
  readonly outcome: "ok" | "error" | "refused";
  /** ctl's error code (`not_found`, `auth`, …) when the command failed. */
  readonly code?: string;
  readonly duration_ms: number;
}

/** Argument names whose values are secrets, at any depth of an argument (a raw body's `password`). */
const SECRET_NAME = /pass(word)?|secret|token|api_?key|credential|authorization/i;

/**
 * `args` with every secret's value replaced by `****`.
 *
 * @example
 * ```ts
 * maskSecrets({ name: "alice", password: "s3cret" }); // { name: "alice", password: "****" }
 * ```
 */
export function maskSecrets(args: Record<string, unknown>): Record<string, unknown> {
  const masked = (value: unknown, secret: boolean): unknown => {
    if (secret && value !== undefined && value !== null && typeof value !== "object") return "****";
    if (Array.isArray(value)) return value.map((item) => masked(item, secret));
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [key, masked(item, secret || SECRET_NAME.test(key))]),
      );
    }
    return value;
  };
  return masked(args, false) as Record<string, unknown>;
}

/** An audit log appending each entry as a line through `append`. */
export function auditLog(append: (line: string) => Promise<void>): (entry: AuditEntry) => Promise<void> {
  // One write at a time, in the order the calls ended.
  let last = Promise.resolve();
  return (entry) => last = last.then(() => append(`${JSON.stringify(entry)}\n`));
}
