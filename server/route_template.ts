import type { Context } from "hono";
import { routePath } from "hono/route";

/**
 * The route a request matched, as its template (`/tasks/:task_id`): a bounded label for metrics
 * and logs, never the raw path. A path answered by middleware (the rate-limited routes) is what
 * that middleware set; a path no route has is `unmatched`.
 */
export function routeTemplate(c: Context): string {
  const set = c.get("routeTemplate") as string | undefined;
  if (set) return set;
  const path = routePath(c, -1);
  return path === "*" || path === "/*" || path === "" ? "unmatched" : path;
}

/** Names the route of a request that middleware answers (a rate-limited route). */
export function setRouteTemplate(c: Context, template: string): void {
  c.set("routeTemplate", template);
}
