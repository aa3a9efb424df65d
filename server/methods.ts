import type { Context, MiddlewareHandler } from "hono";
import { problem } from "./errors.ts";

/** A route as Hono lists it (`app.routes`). */
export interface RouteEntry {
  readonly method: string;
  readonly path: string;
}

/** Methods in the order `Allow` lists them. */
const ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/**
 * Methods a `Request` cannot be built with (`new Request()` throws "Method is forbidden"): the
 * runtime's server hands them over, but nothing may copy them, as reading a body does.
 */
const UNBUILDABLE = new Set(["TRACE", "TRACK", "CONNECT"]);

const patterns = new WeakMap<readonly RouteEntry[], { method: string; pattern: RegExp }[]>();

/** The methods `path` has a route for (middleware, `ALL`, aside); HEAD wherever GET is. Empty: no such path. */
export function allowedMethods(routes: readonly RouteEntry[], path: string): string[] {
  let table = patterns.get(routes);
  if (!table || table.length !== routes.length) {
    table = routes.filter((r) => r.method !== "ALL").map((r) => ({ method: r.method, pattern: toPattern(r.path) }));
    patterns.set(routes, table);
  }
  const methods = new Set(table.filter((r) => r.pattern.test(path)).map((r) => r.method));
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods].sort((a, b) => rank(a) - rank(b));
}

const rank = (method: string) => (ORDER.indexOf(method) + ORDER.length + 1) % (ORDER.length + 1);

/** A Hono path (`/tasks/:task_id`, `/docs/*`) as a regular expression. */
function toPattern(path: string): RegExp {
  const parts = path.split("/").map((part) =>
    part === "*" ? ".*" : part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
  );
  return new RegExp(`^${parts.join("/")}/?$`);
}

/**
 * The answer when no route takes the request: 405 with `Allow` when the path exists only with
 * other methods, else 404.
 */
export function noRoute(routes: () => readonly RouteEntry[]): (c: Context) => Response {
  return (c) => {
    const allow = allowedMethods(routes(), c.req.path);
    // A route of this method that passed the request on (`next()`) found nothing there: a 404 too.
    if (allow.length === 0 || allow.includes(c.req.method)) {
      return problem(c, 404, `No route for ${c.req.method} ${c.req.path}`);
    }
    const list = allow.length === 1 ? allow[0] : `${allow.slice(0, -1).join(", ")} or ${allow.at(-1)}`;
    return problem(c, 405, `${c.req.method} is not allowed on ${c.req.path}; use ${list}`, {
      headers: { allow: allow.join(", ") },
    });
  };
}

/** Answers TRACE, TRACK and CONNECT at once, as {@link noRoute} does any method a path lacks. */
export function refuseUnbuildableMethods(routes: () => readonly RouteEntry[]): MiddlewareHandler {
  const answer = noRoute(routes);
  return (c, next) => UNBUILDABLE.has(c.req.method.toUpperCase()) ? Promise.resolve(answer(c)) : next();
}
