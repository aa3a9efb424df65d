/**
 * The MCP server of `ctl mcp serve`: `tools/list` offers the tools the policy allows, and
 * `tools/call` runs the tool's command line through `ctl` itself (profile, credentials, retries,
 * errors and JSON output as on the command line), answering its JSON, or its error as a tool
 * error the model can read.
 *
 * @module
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestTaskStore } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolRequest } from "@modelcontextprotocol/sdk/types.js";
import { StoreCtlError } from "../../lib/errors/mod.ts";
import { VERSION } from "../../lib/version/mod.ts";
import { type AuditEntry, maskSecrets } from "./audit.ts";
import { offers, type Policy, refusal } from "./policy.ts";
import { DEFAULT_TASK_TTL_MS, type TaskRegistry } from "./tasks.ts";
import { argvOf, type CommandTool } from "./tools.ts";

/** What one run of `ctl` printed, and how it ended. */
export interface CtlOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** How a call runs: stopped by `signal` (a cancel), telling `progress` each new state of what it waits for. */
export interface CallControl {
  readonly signal?: AbortSignal;
  readonly progress?: (line: string) => void;
}

/** What the server is built from. */
export interface McpServerOptions {
  readonly tools: readonly CommandTool[];
  readonly policy: Policy;
  /** Runs `ctl` with these words (the tool's command line, then `-o json` and the server's own globals). */
  readonly runCtl: (argv: readonly string[], control: CallControl) => Promise<CtlOutcome>;
  /** Where waiting tools run when called as MCP tasks; none: every call blocks. */
  readonly tasks?: TaskRegistry;
  /** Records each call (`--audit`). */
  readonly audit?: (entry: AuditEntry) => Promise<void>;
  /** The time, in milliseconds since the epoch. */
  readonly now?: () => number;
}

/**
 * An MCP server of `options.tools` under `options.policy`; connect it to a transport. The SDK
 * loads here, on demand (for the Node bundle, from its own file). A tool that waits for a remote
 * operation runs as an MCP task when the client asks for one (the `--wait` is then implied), and
 * otherwise blocks, sending each state of the operation as a progress notification.
 */
export async function createMcpServer(options: McpServerOptions): Promise<Server> {
  const [{ Server }, { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError }] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  const { policy, runCtl, tasks } = options;
  const now = options.now ?? Date.now;
  const offered = options.tools.filter((tool) => offers(policy, tool));
  const byName = new Map(offered.map((tool) => [tool.name, tool]));
  const server = new Server(
    { name: "storectl", title: "ctl", version: VERSION },
    {
      capabilities: {
        tools: {},
        ...(tasks && { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }),
      },
      instructions: `ctl's commands for the cloud and enterprise management APIs. Policy: ${policy.tier}.`,
      ...(tasks && { taskStore: tasks.store }),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: offered.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema as { type: "object" },
      annotations: {
        title: tool.title,
        readOnlyHint: tool.access === "read",
        destructiveHint: tool.access === "destructive",
        openWorldHint: true,
      },
      ...(tasks && tool.waits && { execution: { taskSupport: "optional" as const } }),
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request: CallToolRequest, extra: CallExtra) => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      const hidden = options.tools.some((t) => t.name === request.params.name);
      throw new McpError(
        ErrorCode.InvalidParams,
        hidden
          ? `${request.params.name} is not offered under the policy ${policy.tier}`
          : `No tool ${request.params.name}; tools/list lists them`,
      );
    }
    const args = request.params.arguments ?? {};
    const started = now();
    const audited = async (result: Called) => {
      await options.audit?.({
        time: new Date(started).toISOString(),
        tool: tool.name,
        arguments: maskSecrets(args),
        outcome: result.refused ? "refused" : result.isError ? "error" : "ok",
        ...(result.code && { code: result.code }),
        duration_ms: now() - started,
      });
      return { content: result.content, ...(result.isError && { isError: true }) };
    };
    const asTask = request.params.task !== undefined && tasks !== undefined && tool.waits && extra.taskStore;
    const prepared = prepare(
      tool,
      asTask ? { ...args, ...("wait" in (tool.spec.flags ?? {}) && { wait: true }) } : args,
    );
    if (!("argv" in prepared)) return await audited(prepared);
    if (!asTask) {
      const token = request.params._meta?.progressToken;
      let step = 0;
      const progress = token === undefined ? undefined : (message: string) =>
        void extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: ++step, message },
        }).catch(() => {});
      return await audited(await execute(prepared.argv, { signal: extra.signal, progress }));
    }
    const store = extra.taskStore!;
    const task = await store.createTask({ ttl: request.params.task!.ttl ?? DEFAULT_TASK_TTL_MS, pollInterval: 1_000 });
    const stop = new AbortController();
    const forget = tasks!.running(task.taskId, () => stop.abort());
    void (async () => {
      const progress = (line: string) => void store.updateTaskStatus(task.taskId, "working", line).catch(() => {});
      const result = await execute(prepared.argv, { signal: stop.signal, progress });
      forget();
      const stored = await audited(result);
      // A cancelled task keeps its status: the store refuses a result for it.
      await store.storeTaskResult(task.taskId, result.isError ? "failed" : "completed", stored).catch(() => {});
    })();
    return { task };
  });

  /** The command line of a call, or why it may not run. */
  function prepare(tool: CommandTool, args: Record<string, unknown>): Called | { argv: string[] } {
    const refused = refusal(policy, tool, args);
    if (refused) return { ...failed(refused), refused: true };
    try {
      return { argv: argvOf(tool, args) };
    } catch (error) {
      if (error instanceof StoreCtlError) return { ...failed(error.message), code: error.code };
      throw error;
    }
  }

  /** Runs a command line: its JSON, or ctl's error as a tool error. */
  async function execute(argv: readonly string[], control: CallControl): Promise<Called> {
    const outcome = await runCtl([...argv, "--output", "json"], control);
    if (outcome.code === 0) return { content: [{ type: "text" as const, text: outcome.stdout.trim() }] };
    const text = outcome.stderr.trim() || `ctl ended with exit code ${outcome.code}`;
    return { ...failed(text), code: errorCodeOf(text) };
  }
  return server;
}

/** What the SDK gives a call's handler, as far as this server uses it. */
interface CallExtra {
  readonly signal: AbortSignal;
  readonly taskStore?: RequestTaskStore;
  sendNotification(notification: { method: "notifications/progress"; params: ProgressParams }): Promise<void>;
}
type ProgressParams = { progressToken: string | number; progress: number; message: string };

/** A call's result, and for the audit whether the policy refused it and ctl's error code. */
interface Called {
  readonly content: { type: "text"; text: string }[];
  readonly isError?: boolean;
  readonly refused?: boolean;
  readonly code?: string;
}

/** A tool error: the model reads it and can try otherwise. */
const failed = (text: string) => ({ isError: true, content: [{ type: "text" as const, text }] });

/** ctl's error code in its JSON error (`{"error": {"code": …}}`), if that is what it printed. */
function errorCodeOf(stderr: string): string | undefined {
  try {
    return JSON.parse(stderr.split("\n").at(-1)!).error?.code;
  } catch {
    return undefined;
  }
}
