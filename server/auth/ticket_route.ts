/**
 * `POST /stream-tickets`: a ticket for one stream URL, for clients that cannot send headers
 * (a browser's `EventSource`). See `tickets.ts`.
 *
 * @module
 */
import { createRoute, type Hook, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Env } from "hono";
import { InvalidInput } from "../errors.ts";
import { json, jsonBodyProblems, problemResponse } from "../routes/responses.ts";
import { callerOf, refuseWithout } from "./principal.ts";
import { type Need, needs } from "./scopes.ts";
import type { Tickets } from "./tickets.ts";

const Ticket = z.object({
  ticket: z.string(),
  url: z.string().openapi({ description: "The stream URL with `ticket` added: open it with EventSource" }),
  expires_in: z.number().int().openapi({ description: "Seconds the ticket is good for (once)" }),
}).openapi("StreamTicket");

/**
 * The route. `streams` says what each stream route needs, by `"GET /tasks/:task_id/stream"`;
 * a URL that is not one of them is a 422, a caller without its scope a 403.
 */
export function ticketRoutes<E extends Env>(
  tickets: Tickets,
  scopes: () => ReadonlyMap<string, Need>,
  defaultHook: Hook<unknown, E, string, unknown>,
): OpenAPIHono<E> {
  const app = new OpenAPIHono<E>({ defaultHook });
  app.openapi(
    createRoute({
      method: "post",
      path: "/stream-tickets",
      summary: "A short-lived, single-use ticket for one stream URL (for EventSource, which cannot send headers)",
      description: "The ticket works once, for 60 s, on the stream URL it names only (its path and query; `ticket` " +
        "aside), with the scopes of the token that asked for it. Tokens themselves are never accepted in a URL.",
      security: needs("tasks:read"),
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.object({
                url: z.string().min(1).max(2_000).openapi({ example: "/tasks/0b6f2c1e/stream?replay=false" }),
              }),
            },
          },
        },
      },
      responses: {
        201: json(Ticket, "The ticket, and the URL to open"),
        ...jsonBodyProblems,
        403: problemResponse("The token lacks the scope the stream needs"),
        422: problemResponse("The URL is not a stream of this service"),
      },
    }),
    async (c) => {
      const asked = c.req.valid("json").url;
      const url = URL.canParse(asked, "http://service") && asked.startsWith("/") && !asked.startsWith("//")
        ? new URL(asked, "http://service")
        : undefined;
      const route = url && streamRoute(scopes(), url.pathname);
      if (!url || !route) {
        throw new InvalidInput("url is not a stream of this service", [{
          field: "url",
          message: "must be the path (and query) of a stream: /tasks/{task_id}/stream, " +
            "/sessions/{session_id}/stream or /stream",
        }]);
      }
      url.searchParams.delete("ticket");
      const principal = callerOf(c) ?? { name: "anonymous", tenant: "default", scopes: ["admin" as const] };
      if (route.need) refuseWithout(principal, route.need, url.pathname);
      const { ticket } = await tickets.issue(principal, "GET", url.pathname, url.searchParams);
      url.searchParams.set("ticket", ticket);
      return c.json({ ticket, url: url.pathname + url.search, expires_in: Math.round(tickets.ttlMs / 1000) }, 201);
    },
  );
  return app;
}

/** The stream route (`GET …/stream`) a path is, with its need. */
function streamRoute(scopes: ReadonlyMap<string, Need>, path: string): { need: Need } | undefined {
  for (const [key, need] of scopes) {
    const [method, pattern] = key.split(" ");
    if (method !== "GET" || !pattern.endsWith("/stream")) continue;
    const regex = new RegExp(`^${pattern.replace(/:\w+/g, "[^/]+")}$`);
    if (regex.test(path)) return { need };
  }
  return undefined;
}
