/**
 * How `optimize` classifies an entry by its name alone: pure functions, one rule each, so the
 * documentation (docs/ctl.md) can state them exactly and tests can hold them to it.
 */

/**
 * The longest name (or link target) written, in UTF-8 bytes: Linux's `PATH_MAX`, beyond which
 * no extractor can create the path anyway. A limit also keeps what optimize remembers per entry
 * small: a PAX record may carry a name of up to 8 MiB.
 */
export const MAX_NAME_BYTES = 4096;

/**
 * Why a name must never be written, or undefined when it is safe: absolute paths (`/…`, `C:\…`,
 * `\\server\…`) and any `..` component (after treating `\` as a separator too) could write
 * outside the directory the archive is extracted into; a name longer than `MAX_NAME_BYTES`
 * cannot be extracted.
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
  if (name.length > MAX_NAME_BYTES || utf8Length(name) > MAX_NAME_BYTES) return `longer than ${MAX_NAME_BYTES} bytes`;
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

/**
 * A name as an extractor resolves it, to compare names for the same path: `/` and `\\` separate
 * components, empty and `.` components go, and case is ignored (a case-insensitive file system
 * takes `Node_1/x` to the same place as `node_1/x`).
 *
 * @example
 * ```ts
 * import { pathKey } from "./rules.ts";
 * pathKey("./Node_1//logs/./a.log"); // "node_1/logs/a.log"
 * ```
 */
export function pathKey(name: string): string {
  return name.split(/[\\/]/).filter((part) => part !== "" && part !== ".").join("/").toLowerCase();
}

/**
 * The symbolic link of `links` (name as written, by `pathKey`) that `name` is, or lies under;
 * undefined when none. Extracting such a name would follow the link, which may point anywhere.
 *
 * @example
 * ```ts
 * import { linkOnPath, pathKey } from "./rules.ts";
 * const links = new Map([[pathKey("node_1"), "node_1"]]);
 * linkOnPath("node_1/logs/a.log", links); // { link: "node_1", under: true }
 * ```
 */
export function linkOnPath(
  name: string,
  links: ReadonlyMap<string, string>,
): { link: string; under: boolean } | undefined {
  if (links.size === 0) return undefined;
  const key = pathKey(name);
  for (let end = key.indexOf("/"); end !== -1; end = key.indexOf("/", end + 1)) {
    const link = links.get(key.slice(0, end));
    if (link !== undefined) return { link, under: true };
  }
  const link = links.get(key);
  return link === undefined ? undefined : { link, under: false };
}

/**
 * The UTF-8 length of `text` in bytes, counted without encoding it.
 *
 * @example
 * ```ts
 * import { utf8Length } from "./rules.ts";
 * utf8Length("ü.log"); // 6
 * ```
 */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // Two units of a surrogate pair make 4 bytes; other units above 0x7ff make 3.
    if (unit >= 0x80) bytes += unit >= 0x800 && (unit < 0xd800 || unit > 0xdfff) ? 2 : 1;
  }
  return bytes;
}
