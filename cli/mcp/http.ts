/**
 * `ctl mcp serve --http <port>`: the same tools over MCP's streamable HTTP transport, at `/mcp`
 * on 127.0.0.1 only. Stateless: each POST gets a server of its own (the tools are made once), so
 * nothing is kept between requests. Only the loopback names are answered (`Host`, and `Origin`
 * when a browser sends one): a page elsewhere cannot reach the tools through DNS rebinding.
 *
 * @module
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";

/** The path the tools are served at. */
export const MCP_PATH = "/mcp";

/** The fetch handler of the HTTP face; `port()` is the port listened on (known once listening). */
export function mcpFetch(newServer: () => Promise<Server>, port: () => number) {
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname !== MCP_PATH) return problem(404, `Nothing at ${url.pathname}; the MCP endpoint is ${MCP_PATH}`);
    const local = [`127.0.0.1:${port()}`, `localhost:${port()}`];
    const origin = request.headers.get("origin");
    if (!local.includes(request.headers.get("host") ?? "") || (origin !== null && !local.includes(hostOf(origin)))) {
      return problem(403, "ctl mcp serve answers only 127.0.0.1 and localhost, not pages of other sites");
    }
    if (request.method !== "POST") {
      return problem(405, "This server is stateless: send each message with POST (no GET stream, no sessions)", {
        allow: "POST",
      });
    }
    const { WebStandardStreamableHTTPServerTransport } = await import(
      "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
    );
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = await newServer();
    await server.connect(transport);
    return await transport.handleRequest(request);
  };
}

const hostOf = (origin: string) => URL.canParse(origin) ? new URL(origin).host : "";

const problem = (status: number, detail: string, headers: Record<string, string> = {}) =>
  Response.json({ jsonrpc: "2.0", id: null, error: { code: -32000, message: detail } }, { status, headers });
