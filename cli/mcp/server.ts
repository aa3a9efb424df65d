/**
 * The MCP server of `ctl mcp serve`: `tools/list` offers the tools the policy allows, and
 * `tools/call` runs the tool's command line through `ctl` itself (profile, credentials, retries,
 * errors and JSON output as on the command line), answering its JSON, or its error as a tool
 * error the model can read.
 *
 * @module
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolRequest, CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { StoreCtlError } from "../../lib/errors/mod.ts";
import { VERSION } from "../../lib/version/mod.ts";
import { type AuditEntry, maskSecrets } from "./audit.ts";
import { offers, type Policy, refusal } from "./policy.ts";
import { argvOf, type CommandTool } from "./tools.ts";

/** What one run of `ctl` printed, and how it ended. */
export interface CtlOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** What the server is built from. */
export interface McpServerOptions {
  readonly tools: readonly CommandTool[];
  readonly policy: Policy;
  /** Runs `ctl` with these words (the tool's command line, then `-o json` and the server's own globals). */
  readonly runCtl: (argv: readonly string[]) => Promise<CtlOutcome>;
  /** Records each call (`--audit`). */
  readonly audit?: (entry: AuditEntry) => Promise<void>;
  /** The time, in milliseconds since the epoch. */
  readonly now?: () => number;
}

/**
 * An MCP server of `options.tools` under `options.policy`; connect it to a transport. The SDK
 * loads here, on demand (for the Node bundle, from its own file).
 */
export async function createMcpServer(options: McpServerOptions): Promise<Server> {
  const [{ Server }, { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError }] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  const { policy, runCtl } = options;
  const now = options.now ?? Date.now;
  const offered = options.tools.filter((tool) => offers(policy, tool));
  const byName = new Map(offered.map((tool) => [tool.name, tool]));
  const server = new Server(
    { name: "storectl", title: "ctl", version: VERSION },
    {
      capabilities: { tools: {} },
      instructions: `ctl's commands for the cloud and enterprise management APIs. Policy: ${policy.tier}.`,
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
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request: CallToolRequest): Promise<CallToolResult> => {
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
    const result = await call(tool, args);
    await options.audit?.({
      time: new Date(started).toISOString(),
      tool: tool.name,
      arguments: maskSecrets(args),
      outcome: result.refused ? "refused" : result.isError ? "error" : "ok",
      ...(result.code && { code: result.code }),
      duration_ms: now() - started,
    });
    return { content: result.content, ...(result.isError && { isError: true }) };
  });

  async function call(tool: CommandTool, args: Record<string, unknown>): Promise<Called> {
    const refused = refusal(policy, tool, args);
    if (refused) return { ...failed(refused), refused: true };
    let argv: string[];
    try {
      argv = argvOf(tool, args);
    } catch (error) {
      if (error instanceof StoreCtlError) return { ...failed(error.message), code: error.code };
      throw error;
    }
    const outcome = await runCtl([...argv, "--output", "json"]);
    if (outcome.code === 0) return { content: [{ type: "text" as const, text: outcome.stdout.trim() }] };
    const text = outcome.stderr.trim() || `ctl ended with exit code ${outcome.code}`;
    return { ...failed(text), code: errorCodeOf(text) };
  }
  return server;
}

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
