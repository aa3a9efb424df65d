/**
 * The service over the Model Context Protocol: `POST /mcp` (streamable HTTP, stateless: each
 * request is answered on its own), behind the same tokens, scopes and tenants as the rest. A
 * caller sees the tools its token's scopes allow, over its tenant's tasks. A submit called as an
 * MCP task (the tasks extension) returns our task as the MCP task at once: `tasks/get`,
 * `tasks/result`, `tasks/list` and `tasks/cancel` read and cancel our tasks. docs/mcp.md says how.
 *
 * @module
 */
import { createRoute, type Hook, OpenAPIHono } from "@hono/zod-openapi";
import type { Context, Env } from "hono";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
import type { CallToolRequest } from "@modelcontextprotocol/sdk/types.js";
import { VERSION } from "../../lib/version/mod.ts";
import type { TaskDefinition } from "../../lib/tasks/mod.ts";
import { callerOf } from "../auth/principal.ts";
import { Draining } from "../errors.ts";
import { grants, needsAnyOf, SCOPES } from "../auth/scopes.ts";
import type { ScopeOf } from "../scope.ts";
import type { Scope } from "../service.ts";
import { serviceTools, submit, type ToolContext, toolError } from "./tools.ts";
import { mcpTask, toolResult } from "./wire.ts";

/** What the MCP route is built from. */
export interface McpDeps {
  readonly scopeOf: ScopeOf;
  readonly kinds: readonly TaskDefinition[];
  readonly cascadeCancel: boolean;
  /** The process's drain: from its start a call of a tool that submits is a 503 with `Retry-After`. */
  readonly drain?: { readonly signal: AbortSignal; readonly retryMs: number };
}

export const MCP_PATH = "/mcp";

const MCP_ROUTE = createRoute({
  method: "post",
  path: MCP_PATH,
  security: needsAnyOf("tasks:read", "tasks:write", "pipelines:read"),
  tags: ["MCP"],
  summary: "MCP over streamable HTTP, stateless: one JSON-RPC message per POST (GET and DELETE: 405)",
  responses: { 200: { description: "See the MCP specification (2025-11-25) and docs/mcp.md" } },
});
/** `/mcp`, as a sub-app. */
export function mcpRoutes<E extends Env>(
  deps: McpDeps,
  defaultHook: Hook<unknown, E, string, unknown>,
): OpenAPIHono<E> {
  const app = new OpenAPIHono<E>({ defaultHook });
  const tools = serviceTools(deps.kinds);
  app.openapi(MCP_ROUTE, async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      const error = { code: -32700, message: "Parse error: the body is not JSON; send one JSON-RPC message" };
      return c.json({ jsonrpc: "2.0", id: null, error }, 400);
    }
    const refused = deps.drain?.signal.aborted ? submitting(tools, body) : undefined;
    if (refused) {
      const { message, headers } = new Draining("tasks", deps.drain!.retryMs);
      // JSON-RPC's implementation-defined server error: MCP has no code for a server that takes no new calls.
      return c.json({ jsonrpc: "2.0", id: refused.id, error: { code: -32000, message } }, 503, headers);
    }
    const { WebStandardStreamableHTTPServerTransport } = await import(
      "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
    );
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = await mcpServer(deps, tools, c);
    await server.connect(transport);
    return await transport.handleRequest(c.req.raw, { parsedBody: body });
  });
  return app;
}

/** The message, when it is a call of a tool that submits a task. */
function submitting(tools: ReturnType<typeof serviceTools>, body: unknown): { id: unknown } | undefined {
  const { method, params, id } = (body ?? {}) as { method?: unknown; params?: { name?: unknown }; id?: unknown };
  if (method !== "tools/call") return undefined;
  return tools.some((tool) => tool.submits && tool.name === params?.name) ? { id: id ?? null } : undefined;
}

/** A server for one request: the caller's tools over the caller's scope. */
async function mcpServer(deps: McpDeps, all: ReturnType<typeof serviceTools>, c: Context): Promise<Server> {
  const [{ Server }, { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError }] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  const held = callerOf(c)?.scopes ?? SCOPES; // running open, every tool
  const tools = all.filter((tool) => grants(held, tool.needs));
  const scope = deps.scopeOf(c);
  const server = new Server(
    { name: "storectl-service", title: "storectl service", version: VERSION },
    {
      capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      instructions: "The service's tasks (submit, follow, answer, cancel) and the search of its documents.",
      taskStore: scopeTaskStore(scope, deps.cascadeCancel),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema as { type: "object" },
      annotations: { readOnlyHint: tool.readOnly, destructiveHint: tool.name === "cancel_task", openWorldHint: false },
      ...(tool.submits && { execution: { taskSupport: "optional" as const } }),
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request: CallToolRequest, extra: CallExtra) => {
    const tool = tools.find((t) => t.name === request.params.name);
    if (!tool) {
      const other = all.some((t) => t.name === request.params.name);
      throw new McpError(
        ErrorCode.InvalidParams,
        other
          ? `${request.params.name} needs the scope '${all.find((t) => t.name === request.params.name)!.needs}', ` +
            "which this token lacks"
          : `No tool ${request.params.name}; tools/list lists them`,
      );
    }
    const args = request.params.arguments ?? {};
    const token = request.params._meta?.progressToken;
    let step = 0;
    const ctx: ToolContext = {
      scope,
      cascadeCancel: deps.cascadeCancel,
      signal: extra.signal,
      progress: token === undefined ? undefined : (message) =>
        void extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: ++step, message },
        }).catch(() => {}),
    };
    if (tool.submits && request.params.task !== undefined) {
      // As an MCP task: our task is the MCP task; tasks/get and tasks/result read it.
      const record = await submit(tool.submits.kind, tool.submits.args(args), ctx);
      return "content" in record ? record : { task: mcpTask(record) };
    }
    try {
      return await tool.call(args, ctx);
    } catch (error) {
      if (extra.signal.aborted) return toolError("The call was cancelled");
      throw error;
    }
  });
  return server;
}

/** What the SDK gives a call's handler, as far as this server uses it. */
interface CallExtra {
  readonly signal: AbortSignal;
  sendNotification(notification: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; message: string };
  }): Promise<void>;
}

/** MCP's task store over a scope's tasks: ours are the MCP tasks (made by the submit tools, never by the SDK). */
function scopeTaskStore(scope: Scope, cascade: boolean): TaskStore {
  const { tasks } = scope.store;
  const record = async (taskId: string) => {
    const found = await tasks.get(taskId);
    if (!found) throw new Error(`No task ${taskId}`);
    return found;
  };
  return {
    createTask: () => Promise.reject(new Error("Tasks are made by the submit tools")),
    getTask: async (taskId: string) => {
      const found = await tasks.get(taskId);
      return found ? mcpTask(found) : null;
    },
    storeTaskResult: () => Promise.resolve(), // the runner stores results
    getTaskResult: async (taskId: string) => toolResult(await record(taskId)),
    async updateTaskStatus(taskId: string, status: string) {
      if (status === "cancelled") await scope.runner.cancel(taskId, cascade);
    },
    async listTasks(cursor?: string) {
      const page = await tasks.list({ order: "desc", limit: 50, ...(cursor && { cursor }) });
      return { tasks: page.tasks.map(mcpTask), ...(page.next_cursor && { nextCursor: page.next_cursor }) };
    },
  } as unknown as TaskStore;
}
