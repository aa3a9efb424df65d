/**
 * Checks a JSON value against a shape of `conformance/*_schemas.json` (written by
 * `tools/derive_cloud_schemas.ts`): its fields, their JSON types and enums. Every problem is
 * reported with its path, so one run shows everything the emulator gets wrong.
 *
 * @example
 * ```ts
 * import { shapeProblems } from "./shape.ts";
 * shapeProblems({ id: "1" }, { type: "object", properties: { id: { type: "integer" } }, required: ["id"] });
 * // ["id: expected integer, got string"]
 * ```
 *
 * @module
 */
/**
 * Our own small schema language: enough to say which fields a JSON value has and their types.
 * An `enum` given as a string names a list in the file's `enums` (the task error types, 536 of
 * them, are written once).
 */
export type Shape =
  | { type: "any" }
  | { type: "string" | "integer" | "number" | "boolean" | "null"; enum?: string[] | string }
  | { type: "array"; items: Shape }
  | { type: "object"; properties: Record<string, Shape>; required: string[]; open?: boolean };

/** What is wrong with `value` against `shape`; empty when it conforms. */
export function shapeProblems(
  value: unknown,
  shape: Shape,
  enums: Readonly<Record<string, readonly string[]>> = {},
  path = "",
): string[] {
  const at = path || "(body)";
  const got = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  switch (shape.type) {
    case "any":
      return [];
    case "object": {
      if (got !== "object") return [`${at}: expected object, got ${got}`];
      const record = value as Record<string, unknown>;
      const problems = shape.required.filter((key) => !(key in record)).map((key) => `${join(path, key)}: missing`);
      for (const [key, field] of Object.entries(record)) {
        const known = shape.properties[key];
        if (known) problems.push(...shapeProblems(field, known, enums, join(path, key)));
        else if (!shape.open) problems.push(`${join(path, key)}: not a field of the real object`);
      }
      return problems;
    }
    case "array":
      if (got !== "array") return [`${at}: expected array, got ${got}`];
      return (value as unknown[]).flatMap((item, i) => shapeProblems(item, shape.items, enums, `${path}[${i}]`));
    case "integer":
      return Number.isInteger(value) ? [] : [`${at}: expected integer, got ${got === "number" ? value : got}`];
    default: {
      if (got !== shape.type) return [`${at}: expected ${shape.type}, got ${got}`];
      const allowed = typeof shape.enum === "string" ? enums[shape.enum] : shape.enum;
      return allowed && !allowed.includes(value as string)
        ? [`${at}: ${JSON.stringify(value)} is not one of the documented values`]
        : [];
    }
  }
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);
