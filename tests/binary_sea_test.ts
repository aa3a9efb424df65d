import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { buildSea, SEA_NAME } from "../tools/sea.ts";
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { type Standalone, standalone, standaloneChecks } from "./binary_checks.ts";
import { startEmulator } from "../testing/emulator_process.ts";
import { Client, textOf, toolsOf } from "../testing/mcp_client.ts";
import { missingTools } from "../testing/tools.ts";

const ROOT = new URL("..", import.meta.url).pathname;

Deno.test(
  "Node single executable (npm run build:binary): ctl runs alone from an empty folder, offline",
  { ignore: missingTools("node") },
  async (t) => {
    const dir = await Deno.makeTempDir();
    try {
      const built = await buildSea(`${dir}/dist`);
      assertEquals(built, `${dir}/dist/${SEA_NAME}`);
      const ctl = await standalone(built, `${dir}/alone`);
      await standaloneChecks(t, ctl, "absent");
      await t.step("the libraries kept out of its script load when used", () => onDemandLibraries(ctl));

      await t.step("with @napi-rs/keyring in a node_modules beside it, a keyring: value loads the addon", async () => {
        const addon = `${ROOT}node_modules/@napi-rs`;
        const installed = await Deno.stat(`${addon}/keyring/package.json`).then(() => true, () => false);
        if (!installed) throw new Error(`${addon}/keyring is missing: run npm ci (it is an optional dependency)`);
        await Deno.mkdir(`${dir}/alone/bin/node_modules`);
        await Deno.symlink(addon, `${dir}/alone/bin/node_modules/@napi-rs`);
        const config = `${dir}/alone/keyring.toml`; // written by standaloneChecks
        const r = await ctl.run(["api", "cloud", "get", "/regions"], { STORE_CONFIG_FILE: config });
        assertEquals(r.code, 3, r.stderr);
        assertMatch(r.stderr, /keyring entry 'storectl-test-missing', which does not exist/);
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

/**
 * The binary's script holds `ctl` without its large on-demand libraries (tools/sea.ts), each an
 * asset of its own: a TOML profile (smol-toml), YAML and table output, and `mcp serve` (the MCP SDK).
 */
async function onDemandLibraries(ctl: Standalone): Promise<void> {
  await using emulator = await startEmulator();
  const config = `${ctl.cwd}/../profiles.toml`;
  await Deno.writeTextFile(
    config,
    `[profiles.c]\ndeployment_type = "cloud"\napi_key = "demo-key"\napi_secret = "demo-secret"\n` +
      `api_url = "${emulator.cloudUrl}"\n`,
  );
  const env = { STORE_CONFIG_FILE: config };
  const call = async (...output: string[]) => {
    const r = await ctl.run(["api", "cloud", "get", "/subscriptions", "-q", "subscriptions[].name", ...output], env);
    assertEquals(r.code, 0, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
    return r.stdout;
  };
  const names: string[] = JSON.parse(await call("-o", "json"));
  assert(names.length > 0, "the emulator has subscriptions");
  assertEquals(await call("-o", "yaml"), names.map((name) => `- ${name}\n`).join(""));
  const table = await call("-o", "table");
  for (const name of names) assert(table.includes(name), `${name} in the table:\n${table}`);
  assertMatch(table, /[─┌│]/, "drawn as a table");

  const client = new Client({ name: "storectl-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: ctl.binary,
      args: ["mcp", "serve"],
      cwd: ctl.cwd,
      env: { PATH: "/usr/bin:/bin", HOME: `${ctl.cwd}/../home`, ...env },
      stderr: "pipe",
    }),
  );
  try {
    assert((await toolsOf(client)).some((tool) => tool.name === "cloud_subscription_list"));
    const listed = await client.callTool({ name: "cloud_subscription_list", arguments: {} });
    assert(!listed.isError, textOf(listed));
    assertEquals(JSON.parse(textOf(listed)).map((s: { name: string }) => s.name), names);
  } finally {
    await client.close();
  }
}
