/**
 * How `optimize` classifies an entry by its name alone: pure functions, one rule each, so the
 * README can state them exactly and tests can hold them to it.
 */

/**
 * Why a name must never be written, or undefined when it is safe: absolute paths (`/…`, `C:\…`,
 * `\\server\…`) and any `..` component (after treating `\` as a separator too) could write
 * outside the directory the archive is extracted into.
 *
 * @example
 * ```ts
 * import { unsafePathReason } from "./rules.ts";
 * unsafePathReason("node_1/logs/a.log"); // undefined
 * unsafePathReason("../etc/passwd"); // "a '..' component"
 * ```
 */
export function unsafePathReason(name: string): string | undefined {
  if (name === "") return "an empty name";
  if (name.includes("\0")) return "a NUL byte";
  if (name.startsWith("/") || name.startsWith("\\")) return "an absolute path";
  if (/^[A-Za-z]:/.test(name)) return "a drive letter";
  if (name.split(/[\\/]/).includes("..")) return "a '..' component";
  return undefined;
}

/**
 * Whether the entry is a log file whose last lines are kept: its file name ends in `.log`, or
 * in `.log.<n>` (a rotated copy), compared without regard to case.
 *
 * @example
 * ```ts
 * import { isLogFile } from "./rules.ts";
 * isLogFile("node_1/logs/dmcproxy.log.1"); // true
 * isLogFile("node_1/conf/redis.conf"); // false
 * ```
 */
export function isLogFile(name: string): boolean {
  return /\.log(\.\d+)?$/i.test(name);
}

/**
 * Whether the entry is a nested compressed archive (`.gz`, `.tgz`, compared without regard to
 * case), which optimize removes.
 *
 * @example
 * ```ts
 * import { isNestedArchive } from "./rules.ts";
 * isNestedArchive("node_1/logs/redis.log.1.gz"); // true
 * ```
 */
export function isNestedArchive(name: string): boolean {
  return /\.(gz|tgz)$/i.test(name);
}

/**
 * For a rotated copy of a log (`dir/name.log.<n>`), the name of its current file
 * (`dir/name.log`); undefined for any other name.
 *
 * @example
 * ```ts
 * import { currentLogOf } from "./rules.ts";
 * currentLogOf("node_1/logs/cnm_http.log.1"); // "node_1/logs/cnm_http.log"
 * currentLogOf("node_1/logs/cnm_http.log"); // undefined
 * ```
 */
export function currentLogOf(name: string): string | undefined {
  const match = /^(.*\.log)\.\d+$/i.exec(name);
  return match?.[1];
}

/** A name as the archive means it: a directory's trailing `/` and a leading `./` do not matter. */
export function normalizeName(name: string): string {
  return name.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
}
