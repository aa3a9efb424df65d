/**
 * POSIX path helpers for runtime-neutral code (no `node:path`, which would start Deno's Node
 * layer).
 *
 * @example
 * ```ts
 * import { resolvePath } from "./path.ts";
 * resolvePath("/home/me", "../b/./c.toml"); // "/home/b/c.toml"
 * ```
 *
 * @module
 */

/** The directory part of `path` (`.` when there is none). */
export function dirname(path: string): string {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, "") : path;
  const slash = trimmed.lastIndexOf("/");
  if (slash < 0) return ".";
  return slash === 0 ? "/" : trimmed.slice(0, slash);
}

/** The last part of `path`. */
export function basename(path: string): string {
  return path.replace(/\/+$/, "").split("/").pop() ?? "";
}

/** `dir` and `name` joined with one slash. */
export function joinPath(dir: string, name: string): string {
  return dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`;
}

/** `path` made absolute against `base`, with `.` and `..` resolved. */
export function resolvePath(base: string, path: string): string {
  const parts: string[] = [];
  for (const part of (path.startsWith("/") ? path : `${base}/${path}`).split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "" && part !== ".") parts.push(part);
  }
  return `/${parts.join("/")}`;
}
