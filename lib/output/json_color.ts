const KEY = "\x1b[34;1m";
const STRING = "\x1b[32m";
const LITERAL = "\x1b[35m";
const NUMBER = "\x1b[33m";
const RESET = "\x1b[0m";

/**
 * Pretty JSON (two-space indent, like `JSON.stringify(data, null, 2)`) with ANSI colours in the
 * manner of jq: keys blue, strings green, numbers yellow, booleans and null magenta.
 *
 * @example
 * ```ts
 * import { colorJson } from "./json_color.ts";
 * console.log(colorJson({ name: "a", size: 1 }));
 * ```
 */
export function colorJson(value: unknown, indent = ""): string {
  if (value === null || typeof value === "boolean") return `${LITERAL}${value}${RESET}`;
  if (typeof value === "number") return `${NUMBER}${JSON.stringify(value)}${RESET}`;
  if (typeof value === "string") return `${STRING}${JSON.stringify(value)}${RESET}`;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((v) => `${inner}${colorJson(v ?? null, inner)}`).join(",\n")}\n${indent}]`;
  }
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return "{}";
    const lines = entries.map(([k, v]) => `${inner}${KEY}${JSON.stringify(k)}${RESET}: ${colorJson(v, inner)}`);
    return `{\n${lines.join(",\n")}\n${indent}}`;
  }
  return JSON.stringify(value) ?? "null";
}
