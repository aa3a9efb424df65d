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
    const refused = refusal(policy, tool, args);
    if (refused) return failed(refused);
    let argv: string[];
    try {
      argv = argvOf(tool, args);
    } catch (error) {
      if (error instanceof StoreCtlError) return failed(error.message);
      throw error;
    }
    const outcome = await runCtl([...argv, "--output", "json"]);
    if (outcome.code !== 0) return failed(outcome.stderr.trim() || `ctl ended with exit code ${outcome.code}`);
    return { content: [{ type: "text", text: outcome.stdout.trim() }] };
  });
  return server;
}

/** A tool error: the model reads it and can try otherwise. */
const failed = (text: string): CallToolResult => ({ isError: true, content: [{ type: "text", text }] });
