import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Env } from "hono";
import type { TaskDefinition } from "../lib/tasks/mod.ts";
import { BEARER } from "./auth/scopes.ts";
import { describeTaskKinds } from "./task_kinds_openapi.ts";

/** The document's tags, in the order `/docs` shows them, and the paths each one holds. */
const TAGS: readonly { name: string; description: string; holds: (path: string) => boolean }[] = [
  {
    name: "tasks",
    description: "Agent tasks: submit, list, read, cancel, delete, answer; their children and trees",
    holds: (path) => path.startsWith("/tasks") && !path.endsWith("/stream"),
  },
  {
    name: "streams",
    description: "Server-Sent Events of a task, a session, or everything; tickets for browsers' EventSource",
    holds: (path) => path.endsWith("/stream") || path === "/stream-tickets",
  },
  {
    name: "pipelines",
    description: "Document pipelines: run, prepare, ingest, add, clear, status and search",
    holds: (path) => path.startsWith("/pipelines"),
  },
  {
    name: "rate limit",
    description: "The sliding-window rate-limited route: 10 requests per caller in 30 s",
    holds: (path) => path.startsWith("/api/"),
  },
  { name: "service", description: "The service itself and its store's health", holds: () => true },
];

/** An operation of the document, as far as this file changes it. */
interface Operation {
  tags?: string[];
  security?: Record<string, string[]>[];
  responses?: Record<string, unknown>;
}

const AuthProblem = { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } };
/** What every operation that needs a token may answer besides its own responses. */
const AUTH_PROBLEMS = {
  401: {
    description: "No token, an unknown one, or a token in the URL (`WWW-Authenticate: Bearer`)",
    content: AuthProblem,
  },
  403: { description: "The token lacks the operation's scope (named in `detail`)", content: AuthProblem },
};

const TooMany = z.object({ status: z.literal(429), traceId: z.string() }).openapi("RateLimited");

/**
 * Serves `GET /openapi.json`: the routes' own schemas, the rate-limited routes (answered by a
 * middleware before routing, so declared here), each operation under one tag by its path, and
 * the input schema of each of `taskKinds` (see {@link describeTaskKinds}).
 *
 * @example
 * ```ts
 * import { OpenAPIHono } from "@hono/zod-openapi";
 * import { serveOpenApi } from "./openapi.ts";
 * const app = new OpenAPIHono();
 * serveOpenApi(app, { title: "storectl service", version: "1.0.0" }, ["/api/RateLimited/sliding"]);
 * ```
 */
export function serveOpenApi<E extends Env>(
  app: OpenAPIHono<E>,
  info: { title: string; version: string },
  rateLimited: readonly string[],
  taskKinds: readonly TaskDefinition[] = [],
): void {
  app.openAPIRegistry.registerComponent("securitySchemes", BEARER, {
    type: "http",
    scheme: "bearer",
    description: "A token of the server's SERVICE_TOKENS_FILE, with the scope each operation lists (admin implies " +
      "all). Without SERVICE_TOKENS_FILE the server runs open and asks for none.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "basic", {
    type: "http",
    scheme: "basic",
    description:
      "The rate-limited route's caller identity (the specification's own): the user name counts, nothing is checked",
  });
  for (const path of rateLimited) {
    for (const method of ["get", "post"] as const) {
      app.openAPIRegistry.registerPath({
        method,
        path,
        summary: "A route limited per caller over a sliding window",
        description: "The caller is the part before the first `:` of the Basic Authorization value; the path matches " +
          "in any letter case.",
        security: [{ basic: [] }],
        request: { headers: z.object({ authorization: z.string().openapi({ example: "Basic YWxpY2U6c2VjcmV0" }) }) },
        responses: {
          200: { description: "Counted: within the limit (empty body)" },
          401: { description: "No usable Basic Authorization header (empty body)" },
          429: { description: "Over the limit", content: { "application/json": { schema: TooMany } } },
        },
      });
    }
  }
  // Built on the first request (every route is registered by then) and served as built after.
  let served: Record<string, unknown> | undefined;
  app.get("/openapi.json", (c) => c.json(served ??= build()));
  const build = () => {
    const document = app.getOpenAPI31Document({ openapi: "3.1.0", info });
    for (const [path, operations] of Object.entries(document.paths ?? {})) {
      const tag = TAGS.find((t) => t.holds(path))!.name;
      for (const operation of Object.values(operations as Record<string, Operation>)) {
        operation.tags = [tag];
        if (operation.security?.some((s) => BEARER in s)) {
          operation.responses = { ...AUTH_PROBLEMS, ...operation.responses };
        }
      }
    }
    describeTaskKinds(document as unknown as Record<string, unknown>, taskKinds);
    return { ...document, tags: TAGS.map(({ name, description }) => ({ name, description })) };
  };
}
