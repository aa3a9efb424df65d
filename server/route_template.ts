import type { Context } from "hono";
import { routePath } from "hono/route";

/**
 * The route a request matched, as its template (`/tasks/:task_id`): a bounded label for metrics
 * and logs, never the raw path. Paths answered by middleware (`own`, lower case → as written)
 * are themselves; a path no route has is `unmatched`.
 */
export function routeTemplate(c: Context, own: ReadonlyMap<string, string>): string {
  const fixed = own.get(c.req.path.toLowerCase());
  if (fixed) return fixed;
  const path = routePath(c, -1);
  return path === "*" || path === "/*" || path === "" ? "unmatched" : path;
}
