import type { Context } from "hono";
import type { Json } from "./fixture.ts";

/** A numeric path id, or undefined when the id has the wrong format (answered as 404). */
export function parseId(raw: string): number | undefined {
  return /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
}

/** The request body as a JSON object, or a message saying what is wrong with it. */
export async function readObject(c: Context): Promise<Json | string> {
  const text = await c.req.text();
  if (text.trim() === "") return "Request body is empty; send a JSON object";
  try {
    const value = JSON.parse(text);
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      return "Request body must be a JSON object";
    }
    return value;
  } catch (error) {
    return `Request body is not valid JSON: ${(error as Error).message}`;
  }
}

/** Applies the `offset` and `limit` query parameters, or says which one is invalid. */
export function paginate<T>(c: Context, items: readonly T[]): T[] | string {
  const bounds: number[] = [];
  for (const [name, fallback] of [["offset", 0], ["limit", items.length]] as const) {
    const raw = c.req.query(name);
    if (raw === undefined) {
      bounds.push(fallback);
      continue;
    }
    if (!/^\d+$/.test(raw)) return `Query parameter '${name}' must be a non-negative integer, got '${raw}'`;
    bounds.push(Number(raw));
  }
  const [offset, limit] = bounds;
  return items.slice(offset, offset + limit);
}

/** A message naming the first field of `body` that is not in `allowed`, if any. */
export function unknownField(body: Json, allowed: readonly string[]): string | undefined {
  const extra = Object.keys(body).find((k) => !allowed.includes(k));
  return extra && `Unknown or read-only field '${extra}'; updatable fields are: ${allowed.join(", ")}`;
}

/** Whether `value` is a number greater than zero. */
export function isPositiveNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value > 0;
}

/** Whether `value` is a non-blank string. */
export function isName(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}
