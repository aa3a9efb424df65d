import type { Context, Next } from "hono";

/** An embedded file: its content type and text. */
export interface Asset {
  readonly type: string;
  readonly text: string;
}

/**
 * Answers the file `name` of `table` for good (its URL changes with its content), or passes the
 * request on (a 404) when `table` has no such file. Only the table's own entries count: a name
 * such as `constructor` or `__proto__` is not a file, whatever `Object.prototype` holds.
 */
export function serveAsset(
  c: Context,
  next: Next,
  table: Readonly<Record<string, Asset>>,
  name: string | undefined,
): Response | Promise<void> {
  if (name === undefined || !Object.hasOwn(table, name)) return next();
  const asset = table[name];
  return c.body(asset.text, 200, {
    "content-type": asset.type,
    "cache-control": "public, max-age=31536000, immutable",
  });
}
