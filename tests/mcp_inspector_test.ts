/**
 * The MCP project's own inspector (`@modelcontextprotocol/inspector-cli`, run by Deno from npm)
 * lists the tools of both faces: `ctl mcp serve` over standard input and output, and the
 * service's `/mcp` over streamable HTTP.
 */
import { assert } from "../testing/assert.ts";
import { DENO_CTL } from "../testing/ctl_process.ts";
import { DENO_SERVER, startServer } from "../testing/server_process.ts";

const INSPECTOR = "npm:@modelcontextprotocol/inspector-cli@1.0.3/build/index.js";

/** Runs the inspector with `args`; its JSON answer. */
async function inspect(...args: string[]): Promise<{ tools: { name: string }[] }> {
  // It reads its own package.json through a path it checks against the working folder's parent.
  const home = await Deno.makeTempDir({ prefix: "mcp-inspector-" });
  await Deno.writeTextFile(`${home}/package.json`, "{}");
  await Deno.mkdir(`${home}/work`);
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", INSPECTOR, ...args],
      cwd: `${home}/work`,
      env: { STORE_CONFIG_FILE: `${home}/none.toml`, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    assert(out.code === 0, `inspector exited ${out.code}: ${text}${new TextDecoder().decode(out.stderr)}`);
    return JSON.parse(text);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test("the MCP inspector lists ctl mcp serve's tools (stdio)", async () => {
  const { tools } = await inspect(...DENO_CTL, "mcp", "serve", "--method", "tools/list");
  const names = tools.map((t) => t.name);
  assert(names.includes("cloud_database_list") && names.includes("api_enterprise"), `${names}`);
});

Deno.test("the MCP inspector lists the service's tools at /mcp (streamable HTTP)", async () => {
  await using server = await startServer(DENO_SERVER, { STORE_URL: "memory:" });
  const { tools } = await inspect(`${server.url}/mcp`, "--method", "tools/list");
  const names = tools.map((t) => t.name);
  assert(names.includes("submit_demo") && names.includes("get_task"), `${names}`);
});
