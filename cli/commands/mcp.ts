/**
 * `ctl mcp serve`: ctl's commands as tools of a Model Context Protocol server on standard input
 * and output, for AI agents (Claude Code, Cursor and others) to call.
 *
 * @module
 */
import { capture, type StdIn } from "../../lib/runtime/mod.ts";
import type { Factory } from "../factory.ts";
import { flag } from "../framework/params.ts";
import { command, group } from "../framework/spec.ts";
import { DEFAULT_POLICY, type Policy, TIERS } from "../mcp/policy.ts";
import { createMcpServer } from "../mcp/server.ts";
import { LineTransport } from "../mcp/stdio.ts";
import { commandTools } from "../mcp/tools.ts";
import { run } from "../run.ts";
import { ROOT } from "./mod.ts";

const RAW_METHODS = ["POST", "PUT", "PATCH", "DELETE"];

const serve = command({
  summary: "serve ctl's commands as MCP tools on standard input and output",
  description: `Serve ctl's commands as tools of a Model Context Protocol server on standard input and output,
for AI agents to call: a tool per command of the cloud and enterprise APIs (cloud_database_list,
enterprise_node_get and so on) and a tool per API for raw requests (api_cloud, api_enterprise).

Calls run as ctl runs: the profile and credentials come from --profile, the environment or the
default profile, and no secret is ever in a tool's result. Read-only by default: only tools that
list and get are offered. --policy read-write adds those that create and change, --policy full
those that delete, which still need confirm: true in each call. The raw tools send GET only,
unless --allow-raw names another method.`,
  flags: {
    policy: flag.choice("what the tools may do: read-only (default), read-write or full", TIERS),
    allowRaw: flag.list("a method besides GET the raw API tools may send (POST, PUT, PATCH, DELETE); repeatable", {
      placeholder: "method",
    }),
  },
  examples: [
    "ctl mcp serve",
    "ctl mcp serve --profile prod --policy read-write",
    "claude mcp add storectl -- ctl mcp serve --profile lab",
  ],
  async run({ flags }, f) {
    const rawMethods = (flags.allowRaw ?? []).map((m) => m.toUpperCase());
    const unknown = rawMethods.filter((m) => !RAW_METHODS.includes(m));
    if (unknown.length > 0) {
      throw new (await import("../../lib/errors/mod.ts")).StoreCtlError(
        "usage",
        `--allow-raw must name ${RAW_METHODS.join(", ")}; got ${unknown.join(", ")}`,
      );
    }
    const policy: Policy = { tier: flags.policy ?? DEFAULT_POLICY.tier, rawMethods };
    const tools = await commandTools(ROOT);
    const globals = globalWords(f);
    const server = await createMcpServer({
      tools,
      policy,
      async runCtl(argv) {
        const stdout = capture();
        const stderr = capture();
        const code = await run([...argv, ...globals], { ...f.ctx, stdout, stderr, stdin: NO_INPUT });
        return { code, stdout: stdout.text(), stderr: stderr.text() };
      },
    });
    const transport = new LineTransport(f.ctx.stdin, f.ctx.stdout);
    const closed = new Promise<void>((resolve) => transport.onclose = resolve);
    await server.connect(transport);
    f.ctx.stderr.write(`ctl mcp serve: ${tools.length} tools, policy ${policy.tier}; reading standard input\n`);
    await closed;
  },
});

/** The global flags of `ctl mcp serve` that each call inherits (its profile, config, TLS and timeouts). */
function globalWords(f: Factory): string[] {
  const { profile, configFile, insecure, caCert, timeout, retries } = f.globals;
  return [
    ...(profile ? ["--profile", profile] : []),
    ...(configFile ? ["--config-file", f.resolvePath(configFile)] : []),
    ...(insecure ? ["--insecure"] : []),
    ...(caCert ? ["--ca-cert", f.resolvePath(caCert)] : []),
    `--timeout=${timeout}`,
    `--retries=${retries}`,
  ];
}

/** A call's standard input: none (a tool passes its body as an argument). */
const NO_INPUT: StdIn = {
  isTTY: false,
  readAll: () => Promise.resolve(new Uint8Array()),
  readLine: () => Promise.resolve(undefined),
};

export default group("serve ctl to AI agents over the Model Context Protocol", { serve });
