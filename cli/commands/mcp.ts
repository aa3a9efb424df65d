/**
 * `ctl mcp serve`: ctl's commands as tools of a Model Context Protocol server on standard input
 * and output, for AI agents (Claude Code, Cursor and others) to call.
 *
 * @module
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { capture, type StdIn } from "../../lib/runtime/mod.ts";
import type { Factory } from "../factory.ts";
import { type Flag, flag } from "../framework/params.ts";
import { command, group } from "../framework/spec.ts";
import { StoreCtlError } from "../../lib/errors/mod.ts";
import { auditLog } from "../mcp/audit.ts";
import { DEFAULT_POLICY, offers, type Policy, RAW_METHODS, readPolicy, type Tier, TIERS } from "../mcp/policy.ts";
import { createMcpServer } from "../mcp/server.ts";
import { createTaskRegistry } from "../mcp/tasks.ts";
import { Interrupted } from "../context.ts";
import { LineTransport } from "../mcp/stdio.ts";
import { MCP_PATH, mcpFetch } from "../mcp/http.ts";
import { type CommandTool, commandTools } from "../mcp/tools.ts";
import { run } from "../run.ts";
import { ROOT } from "./mod.ts";

const serve = command({
  summary: "serve ctl's commands as MCP tools on standard input and output",
  description: `Serve ctl's commands as tools of a Model Context Protocol server on standard input and output,
for AI agents to call: a tool per command of the cloud and enterprise APIs (cloud_database_list,
enterprise_node_get and so on) and a tool per API for raw requests (api_cloud, api_enterprise).

Calls run as ctl runs: the profile and credentials come from --profile, the environment or the
default profile, and no secret is ever in a tool's result. Read-only by default: only tools that
list and get are offered. --policy read-write adds those that create and change, --policy full
those that delete, which still need confirm: true in each call. The raw tools send GET only,
unless --allow-raw names another method. A policy file (--policy-file, TOML) sets the tier and
allows or denies tools by name:

  tier = "read-write"
  deny = ["cloud_subscription_delete"]
  allow = ["enterprise_node_remove"]
  raw_methods = ["POST"]

--audit <file> appends one JSON line per call: time, tool, arguments (secrets masked), outcome
and duration.

A tool that waits for an operation (a --wait command, task wait) runs as an MCP task when the
client asks for one (tasks/get, tasks/result, tasks/cancel), and otherwise answers when the
operation ends, sending its states as progress. --http <port> serves the same over streamable
HTTP at http://127.0.0.1:<port>/mcp, answering loopback names only.`,
  flags: {
    policy: flag.choice("what the tools may do: read-only (default), read-write or full", TIERS),
    policyFile: flag.string("a TOML policy: tier, allow and deny (tool names), raw_methods", { placeholder: "path" }),
    allowRaw: flag.list("a method besides GET the raw API tools may send (POST, PUT, PATCH, DELETE); repeatable", {
      placeholder: "method",
    }),
    audit: flag.string("append a JSON line per tool call to this file (secrets masked)", { placeholder: "path" }),
    http: {
      kind: "parsed",
      brief: "serve streamable HTTP at http://127.0.0.1:<port>/mcp instead of standard input (0: a free port)",
      parse: portNumber,
      placeholder: "port",
    } as Flag<number | undefined>,
  },
  examples: [
    "ctl mcp serve",
    "ctl mcp serve --profile prod --policy read-write",
    "ctl mcp serve --http 8765 --policy-file policy.toml --audit mcp-audit.jsonl",
  ],
  async run({ flags }, f) {
    const tools = await commandTools(ROOT);
    const policy = await policyOf(flags, tools, f);
    const auditPath = flags.audit === undefined ? undefined : f.resolvePath(flags.audit);
    // Made (or found appendable) now: a path that cannot be written fails here, not at the first call.
    if (auditPath !== undefined) await f.ctx.fs.appendTextFile(auditPath, "", { mode: 0o600 });
    const globals = globalWords(f);
    const tasks = await createTaskRegistry();
    const newServer = () =>
      createMcpServer({
        tools,
        policy,
        tasks,
        audit: auditPath === undefined
          ? undefined
          : auditLog((line) => f.ctx.fs.appendTextFile(auditPath, line, { mode: 0o600 })),
        now: f.ctx.now,
        async runCtl(argv, { signal, progress }) {
          const stdout = capture();
          const stderr = capture();
          const interrupt = callInterrupt(f.ctx.interrupt, signal);
          const code = await run([...argv, ...globals], {
            ...f.ctx,
            stdout,
            stderr,
            stdin: NO_INPUT,
            interrupt,
            progress,
          });
          return { code, stdout: stdout.text(), stderr: stderr.text() };
        },
      });
    const offered = `${tools.filter((tool) => offers(policy, tool)).length} of ${tools.length} tools`;
    try {
      if (flags.http !== undefined) {
        return await serveHttp(f, flags.http, newServer, `${offered} (policy ${policy.tier})`);
      }
      const transport = new LineTransport(f.ctx.stdin, f.ctx.stdout);
      const closed = new Promise<void>((resolve) => transport.onclose = resolve);
      await (await newServer()).connect(transport);
      f.ctx.stderr.write(`ctl mcp serve: ${offered} (policy ${policy.tier}); reading standard input\n`);
      await closed;
    } finally {
      tasks.close();
    }
  },
});

/** Serves the tools over HTTP until ctl is interrupted. */
async function serveHttp(f: Factory, port: number, newServer: () => Promise<Server>, offered: string): Promise<void> {
  if (!f.ctx.serve) throw new StoreCtlError("internal", "This ctl cannot serve HTTP; use standard input instead");
  // The port is known once listening, before anyone can have been told it.
  const bound = { port: 0 };
  const listener = await f.ctx.serve({
    hostname: "127.0.0.1",
    port,
    fetch: mcpFetch(newServer, () => bound.port),
  }).catch((error: Error) => {
    throw new StoreCtlError("usage", `Cannot listen on 127.0.0.1:${port}: ${error.message}`, {
      tips: ["Give --http another port, or 0 for a free one"],
    });
  });
  bound.port = listener.port;
  f.ctx.stdout.write(`ctl mcp serve: ${offered} at ${listener.url.replace(/\/$/, "")}${MCP_PATH}\n`);
  await f.ctx.stdout.flush();
  // Until Ctrl+C or SIGTERM; then the connections close and ctl exits with the signal's code.
  await new Promise<void>((resolve) => f.ctx.interrupt.addEventListener("abort", () => resolve(), { once: true }));
  await listener.close();
  throw f.ctx.interrupt.reason;
}

/**
 * A call's interrupt: ctl's own (Ctrl+C of the server), or the client's cancel, which stops the
 * call as Ctrl+C stops a command (a remote operation goes on, and the error says how to follow it).
 */
function callInterrupt(own: AbortSignal, cancel: AbortSignal | undefined): AbortSignal {
  if (!cancel) return own;
  const both = new AbortController();
  const stop = (reason: unknown) => both.signal.aborted || both.abort(reason);
  if (own.aborted) stop(own.reason);
  own.addEventListener("abort", () => stop(own.reason), { once: true });
  const cancelled = () => stop(new Interrupted({ name: "SIGINT", number: 2 }));
  if (cancel.aborted) cancelled();
  cancel.addEventListener("abort", cancelled, { once: true });
  return both.signal;
}

/** A TCP port, 0 for a free one. */
function portNumber(input: string): number {
  const port = Number(input);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new StoreCtlError("usage", `must be a port from 0 to 65535; got '${input}'`);
  }
  return port;
}

/** The policy of `--policy` or `--policy-file`, with `--allow-raw`'s methods. */
async function policyOf(
  flags: { policy?: Tier; policyFile?: string; allowRaw?: readonly string[] },
  tools: readonly CommandTool[],
  f: Factory,
): Promise<Policy> {
  if (flags.policy !== undefined && flags.policyFile !== undefined) {
    throw new StoreCtlError("usage", "Give --policy or --policy-file, not both", {
      tips: ['A policy file says its tier itself: tier = "read-write"'],
    });
  }
  const allowRaw = (flags.allowRaw ?? []).map((m) => m.toUpperCase());
  const unknown = allowRaw.filter((m) => !RAW_METHODS.includes(m));
  if (unknown.length > 0) {
    throw new StoreCtlError("usage", `--allow-raw must name ${RAW_METHODS.join(", ")}; got ${unknown.join(", ")}`);
  }
  let policy: Policy = { ...DEFAULT_POLICY, tier: flags.policy ?? DEFAULT_POLICY.tier };
  if (flags.policyFile !== undefined) {
    const path = f.resolvePath(flags.policyFile);
    try {
      policy = await readPolicy(await f.ctx.fs.readTextFile(path), path, tools);
    } catch (error) {
      throw new StoreCtlError("config", `The policy file cannot be used: ${(error as Error).message}`, {
        cause: error,
        tips: ['docs/mcp.md, "Policy", shows a policy file'],
      });
    }
  }
  return { ...policy, rawMethods: [...new Set([...policy.rawMethods, ...allowRaw])] };
}

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
