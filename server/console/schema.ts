/**
 * A small JSON Schema check over the subset the task kinds' input schemas use (types, `properties`,
 * `required`, `additionalProperties: false`, `items`, bounds on numbers, strings and arrays, `enum`,
 * `const`, local `$ref`), so the console can say what is wrong with an input as it is typed. Rules
 * the schema cannot express (a blank question, an overlap of half the chunk size) stay with the
 * service, whose 422 the console shows too.
 *
 * @example
 * ```ts
 * validate({ type: "object", properties: { steps: { type: "integer" } } }, { steps: "3" });
 * // [{ field: "input.steps", message: "expected an integer, got a string" }]
 * ```
 *
 * @module
 */

/** A JSON Schema (the keywords this module reads). */
export type Schema = Record<string, unknown>;

/** One problem of a value: where (`input.documents.0.title`) and what is expected. */
export interface SchemaError {
  readonly field: string;
  readonly message: string;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** A value's kind as a message says it: "a string", "null", or the number itself. */
function describe(value: unknown, expected?: string): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number" && (expected === "integer" || expected === "number")) return String(value);
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    case "array":
      return Array.isArray(value);
    case "integer":
      return Number.isInteger(value);
    case "null":
      return value === null;
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    default:
      return true; // a type this check does not know: the service decides
  }
}

const article = (type: string) => type === "null" ? "null" : `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;

/** Resolves a local `$ref` (`#/components/schemas/X`) against `root`. */
function resolve(schema: Schema, root: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== "string") return schema;
  let at: unknown = root;
  for (const part of ref.replace(/^#\/?/, "").split("/").filter((p) => p !== "")) {
    at = (at as Record<string, unknown> | undefined)?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  if (typeof at !== "object" || at === null) throw new Error(`The schema's $ref ${ref} leads nowhere`);
  return resolve(at as Schema, root);
}

/** Every problem of `value` against `schema`, in the schema's order; none when it passes. */
export function validate(schema: Schema, value: unknown, field = "input", root: Schema = schema): SchemaError[] {
  const s = resolve(schema, root);
  const out: SchemaError[] = [];
  const fail = (message: string) => out.push({ field, message });
  const types = s.type === undefined ? [] : [s.type].flat() as string[];
  if (types.length > 0 && !types.some((t) => hasType(value, t))) {
    fail(`expected ${types.map(article).join(" or ")}, got ${describe(value, types[0])}`);
    return out;
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    fail(`expected one of ${s.enum.map((e) => JSON.stringify(e)).join(", ")}`);
  }
  if ("const" in s && JSON.stringify(s.const) !== JSON.stringify(value)) fail(`expected ${JSON.stringify(s.const)}`);
  if (typeof value === "number") {
    const n = (key: string) => typeof s[key] === "number" ? s[key] as number : undefined;
    if (n("minimum") !== undefined && value < n("minimum")!) fail(`expected at least ${s.minimum}, got ${value}`);
    if (n("maximum") !== undefined && value > n("maximum")!) fail(`expected at most ${s.maximum}, got ${value}`);
    if (n("exclusiveMinimum") !== undefined && value <= n("exclusiveMinimum")!) {
      fail(`expected more than ${s.exclusiveMinimum}, got ${value}`);
    }
    if (n("exclusiveMaximum") !== undefined && value >= n("exclusiveMaximum")!) {
      fail(`expected less than ${s.exclusiveMaximum}, got ${value}`);
    }
  }
  if (typeof value === "string") {
    if (typeof s.minLength === "number" && value.length < s.minLength) {
      fail(`expected at least ${plural(s.minLength, "character")}`);
    }
    if (typeof s.maxLength === "number" && value.length > s.maxLength) {
      fail(`expected at most ${plural(s.maxLength, "character")}`);
    }
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === "number" && value.length < s.minItems) {
      fail(`expected at least ${plural(s.minItems, "item")}`);
    }
    if (typeof s.maxItems === "number" && value.length > s.maxItems) {
      fail(`expected at most ${plural(s.maxItems, "item")}`);
    }
    if (typeof s.items === "object" && s.items !== null) {
      value.forEach((item, i) => out.push(...validate(s.items as Schema, item, `${field}.${i}`, root)));
    }
  }
  if (hasType(value, "object")) {
    const object = value as Record<string, unknown>;
    const properties = (s.properties ?? {}) as Record<string, Schema>;
    const required = Array.isArray(s.required) ? s.required as string[] : [];
    for (const [name, property] of Object.entries(properties)) {
      if (name in object) out.push(...validate(property, object[name], `${field}.${name}`, root));
      else if (required.includes(name)) out.push({ field: `${field}.${name}`, message: "required" });
    }
    for (const name of required) {
      if (!(name in properties) && !(name in object)) out.push({ field: `${field}.${name}`, message: "required" });
    }
    for (const name of Object.keys(object)) {
      if (name in properties) continue;
      if (s.additionalProperties === false) fail(`unknown field ${JSON.stringify(name)}`);
      else if (typeof s.additionalProperties === "object" && s.additionalProperties !== null) {
        out.push(...validate(s.additionalProperties as Schema, object[name], `${field}.${name}`, root));
      }
    }
  }
  return out;
}

/**
 * Each task kind's input schema from the service's `/openapi.json`: the `POST /tasks` body is one
 * request per kind (`oneOf`, `discriminator` on `kind`), whose `input` refers to the kind's schema.
 */
export function inputSchemas(openapi: Schema): Record<string, Schema> {
  // deno-lint-ignore no-explicit-any
  const body = (openapi as any).paths?.["/tasks"]?.post?.requestBody?.content?.["application/json"]?.schema;
  const mapping = (body?.discriminator?.mapping ?? {}) as Record<string, string>;
  const out: Record<string, Schema> = {};
  for (const [kind, ref] of Object.entries(mapping)) {
    const request = resolve({ $ref: ref }, openapi);
    const input = (request.properties as Record<string, Schema> | undefined)?.input;
    out[kind] = input ? resolve(input, openapi) : {};
  }
  return out;
}
