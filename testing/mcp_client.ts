/**
 * The official MCP client (`@modelcontextprotocol/sdk`) for tests: a client of a service's
 * `/mcp` over streamable HTTP, and readers of what tools answer.
 *
 * @example
 * ```ts ignore
 * await using mcp = await mcpClient(server.url, token);
 * const done = await mcp.client.callTool({ name: "submit_demo", arguments: { input: { steps: 0 } } });
 * ```
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export { Client };

/** A connected client of `url`'s `/mcp` (with a bearer `token`), closed on dispose. */
export async function mcpClient(url: string, token?: string) {
  const client = new Client({ name: "storectl-test", version: "1.0.0" });
  const headers = token ? { authorization: `Bearer ${token}` } : undefined;
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return { client, [Symbol.asyncDispose]: () => client.close() };
}

/** What tests read of a listed tool (the SDK's types lose their shape under Deno's zod). */
export interface ListedTool {
  readonly name: string;
  readonly annotations?: { readonly readOnlyHint?: boolean };
  readonly execution?: { readonly taskSupport?: string };
  readonly inputSchema: { readonly required?: readonly string[]; readonly properties?: Record<string, unknown> };
}

export const toolsOf = async (client: Client): Promise<ListedTool[]> =>
  (await client.listTools()).tools as ListedTool[];

/** The text of a tool result's content. */
export const textOf = (result: unknown): string =>
  ((result as { content?: { text: string }[] }).content ?? []).map((c) => c.text).join("");

/** A tool result's structured content. */
export const structuredOf = (result: unknown): Record<string, unknown> =>
  (result as { structuredContent: Record<string, unknown> }).structuredContent;

/** Calls `name` as an MCP task; resolves with the task it made, leaving it to run. */
export async function startTask(client: Client, name: string, args: Record<string, unknown>) {
  const stream = client.experimental.tasks.callToolStream({ name, arguments: args }, undefined, {
    task: { ttl: 60_000 },
  });
  const first = (await stream.next()).value as { type: string; task?: { taskId: string; status: string } };
  await stream.return(undefined);
  if (first.type !== "taskCreated") throw new Error(`${name} made no task: ${JSON.stringify(first)}`);
  return first.task!;
}
