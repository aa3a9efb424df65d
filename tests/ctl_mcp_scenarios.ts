/**
 * `ctl mcp serve` driven by the official MCP client (`@modelcontextprotocol/sdk`'s `Client` over
 * its stdio transport) against the emulator, on Deno and on the Node bundle.
 *
 * @module
 */
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { assert, assertEquals, assertMatch, assertRejects } from "../testing/assert.ts";
import type { World } from "../testing/ctl_process.ts";
import { userEnv } from "../testing/tools.ts";
import { Client, textOf, toolsOf } from "../testing/mcp_client.ts";
import { until } from "../testing/until.ts";
import { startEmulator } from "../testing/emulator_process.ts";

const SECRET = "demo-secret";

/** The environment of `ctl mcp serve` for the emulator's cloud API. */
const cloudEnv = ({ emulator, dir }: World) => ({
  STORE_CONFIG_FILE: `${dir}/mcp-none.toml`,
  STORE_CLOUD_API_URL: emulator.cloudUrl,
  STORE_CLOUD_API_KEY: "demo-key",
  STORE_CLOUD_API_SECRET: SECRET,
});

/** A client of `ctl mcp serve` with `flags`, for the emulator's cloud API. */
async function mcpClient(world: World, ...flags: string[]) {
  const { command, dir } = world;
  const transport = new StdioClientTransport({
    command: command[0],
    args: [...command.slice(1), "mcp", "serve", ...flags],
    cwd: dir,
    env: { ...userEnv(), ...cloudEnv(world) },
    stderr: "pipe",
  });
  const client = new Client({ name: "storectl-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, [Symbol.asyncDispose]: () => client.close() };
}

export const MCP_SCENARIOS: Record<string, (w: World) => Promise<void>> = {
  async "mcp serve: read-only by default — list tools, call one, a write tool is not offered"(world) {
    await using mcp = await mcpClient(world);
    const tools = await toolsOf(mcp.client);
    const names = tools.map((t) => t.name);
    for (const name of ["cloud_subscription_list", "cloud_database_list", "enterprise_node_get", "api_cloud"]) {
      assert(names.includes(name), `${name} among ${names}`);
    }
    assertEquals(names.filter((n) => /_(create|update|delete|remove)$/.test(n)), [], "read-only offers no writes");
    const list = tools.find((t) => t.name === "cloud_database_list")!;
    assertEquals(list.annotations?.readOnlyHint, true);
    assertEquals((list.inputSchema.required ?? []).includes("subscription"), true, JSON.stringify(list.inputSchema));

    const subscriptions = await mcp.client.callTool({ name: "cloud_subscription_list", arguments: {} });
    assert(!subscriptions.isError, textOf(subscriptions));
    const [first] = JSON.parse(textOf(subscriptions));
    assert(typeof first.id === "number", textOf(subscriptions));
    const names2 = await mcp.client.callTool({
      name: "cloud_database_list",
      arguments: { subscription: String(first.id), query: "[].name" },
    });
    assert(Array.isArray(JSON.parse(textOf(names2))), textOf(names2));

    const raw = await mcp.client.callTool({ name: "api_cloud", arguments: { method: "get", path: "/subscriptions" } });
    assert(!raw.isError, textOf(raw));
    const rawPost = await mcp.client.callTool({
      name: "api_cloud",
      arguments: { method: "post", path: "/subscriptions", body: { name: "x" } },
    });
    assertEquals(rawPost.isError, true);
    assertMatch(textOf(rawPost), /only GET.*--allow-raw POST/);

    const refused = await assertRejects(() =>
      mcp.client.callTool({ name: "cloud_database_create", arguments: { subscription: "1", name: "x" } })
    );
    assertMatch((refused as Error).message, /not offered under the policy read-only/);
    for (const result of [subscriptions, names2, raw, rawPost]) assert(!textOf(result).includes(SECRET));
  },

  async "mcp serve --policy full: a delete needs confirm: true; a ctl error is a tool error the model can read"(world) {
    await using mcp = await mcpClient(world, "--policy", "full");
    const names = (await toolsOf(mcp.client)).map((t) => t.name);
    assert(names.includes("cloud_database_delete") && names.includes("cloud_database_create"), `${names}`);
    const unconfirmed = await mcp.client.callTool({
      name: "cloud_database_delete",
      arguments: { subscription: "1", database_id: "1" },
    });
    assertEquals(unconfirmed.isError, true);
    assertMatch(textOf(unconfirmed), /confirm: true/);
    const missing = await mcp.client.callTool({
      name: "cloud_database_get",
      arguments: { subscription: "999999", database_id: "1" },
    });
    assertEquals(missing.isError, true);
    assertMatch(textOf(missing), /"code":"not_found"/);
    const wrong = await mcp.client.callTool({ name: "cloud_database_get", arguments: { nope: 1 } });
    assertEquals(wrong.isError, true);
    assertMatch(textOf(wrong), /has no argument nope/);
  },

  async "mcp serve --policy-file --audit: the file's deny and allow hold; a JSON line per call, secrets masked"(world) {
    const policy = `${world.dir}/mcp-policy.toml`;
    await Deno.writeTextFile(
      policy,
      'tier = "read-only"\nallow = ["enterprise_user_create"]\ndeny = ["cloud_task_list"]\n',
    );
    const audit = `${world.dir}/mcp-audit.jsonl`;
    await Deno.remove(audit).catch(() => {});
    {
      await using mcp = await mcpClient(world, "--policy-file", policy, "--audit", audit);
      const names = (await toolsOf(mcp.client)).map((t) => t.name);
      assert(names.includes("enterprise_user_create") && !names.includes("cloud_task_list"), `${names}`);
      await mcp.client.callTool({ name: "cloud_subscription_list", arguments: {} });
      // No enterprise profile: ctl's config error, with the password masked in the audit.
      const made = await mcp.client.callTool({
        name: "enterprise_user_create",
        arguments: { email: "a@example.com", password: "hunter2-secret", role: "db_viewer" },
      });
      assertEquals(made.isError, true, textOf(made));
      await mcp.client.callTool({ name: "cloud_subscription_get", arguments: { subscription_id: "x" } });
    }
    const text = await Deno.readTextFile(audit);
    assert(!text.includes("hunter2-secret") && !text.includes(SECRET), text);
    const lines = text.trim().split("\n").map((line) => JSON.parse(line));
    assertEquals(lines.map((l) => [l.tool, l.outcome]), [
      ["cloud_subscription_list", "ok"],
      ["enterprise_user_create", "error"],
      ["cloud_subscription_get", "error"],
    ]);
    assertEquals(lines[1].arguments.password, "****");
    assertEquals(lines[1].code, "config");
    for (const line of lines) assert(typeof line.duration_ms === "number" && !Number.isNaN(Date.parse(line.time)));
    assertEquals((await Deno.stat(audit)).mode! & 0o777, 0o600);
  },

  async "mcp serve --http 0: the tools over streamable HTTP on 127.0.0.1; other sites refused; SIGTERM ends it"(world) {
    const child = world.spawn(["mcp", "serve", "--http", "0"], { env: cloudEnv(world) });
    try {
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let banner = "";
      while (!/\/mcp\n/.test(banner)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`ctl mcp serve --http ended: ${banner}`);
        banner += value;
      }
      reader.releaseLock();
      const url = banner.match(/(http:\/\/127\.0\.0\.1:\d+\/mcp)/)![1];
      const client = new Client({ name: "storectl-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const names = (await toolsOf(client)).map((t) => t.name);
      assert(names.includes("cloud_subscription_list") && !names.includes("cloud_database_create"), `${names}`);
      const listed = await client.callTool({ name: "cloud_subscription_list", arguments: { query: "[].id" } });
      assert(Array.isArray(JSON.parse(textOf(listed))), textOf(listed));
      await client.close();
      const foreign = await fetch(url, {
        method: "POST",
        headers: { origin: "http://evil.example", "content-type": "application/json" },
        body: "{}",
      });
      assertEquals(foreign.status, 403);
      assertMatch(await foreign.text(), /only 127\.0\.0\.1 and localhost/);
    } finally {
      child.kill("SIGTERM");
      await child.stdout.cancel().catch(() => {});
      assertEquals((await child.status).code, 143);
      await child.stderr.cancel();
    }
  },

  async "mcp serve: a --wait command as an MCP task (tasks/get, the result) or blocking with progress notifications"(
    world,
  ) {
    await using mcp = await mcpClient(world, "--policy", "read-write");
    const listed = (await toolsOf(mcp.client)).find((t) => t.name === "cloud_database_create")!;
    assertEquals((listed as { execution?: unknown }).execution, { taskSupport: "optional" });
    const subscription = String(JSON.parse(textOf(
      await mcp.client.callTool({
        name: "cloud_subscription_list",
        arguments: { query: "[0].id" },
      }),
    )));
    const create = (name: string) => ({
      name: "cloud_database_create",
      arguments: { subscription, name, dataset_size_gb: "1", wait_interval: "0.1" },
    });

    // As a task: created at once, working while the cloud task runs, then the new database.
    const messages = [];
    for await (
      const message of mcp.client.experimental.tasks.callToolStream(create("mcp-task"), undefined, {
        task: { ttl: 60_000 },
      })
    ) messages.push(message as { type: string; task?: { taskId: string; status: string }; result?: unknown });
    assertEquals(messages[0].type, "taskCreated");
    assertEquals(messages.at(-1)!.type, "result", JSON.stringify(messages.at(-1)));
    const made = JSON.parse(textOf(messages.at(-1)!.result));
    assertEquals(made.name, "mcp-task", textOf(messages.at(-1)!.result));
    const taskId = messages[0].task!.taskId;
    assertEquals((await mcp.client.experimental.tasks.getTask(taskId)).status, "completed");

    // Blocking, by a client that asks for progress: each state of the cloud task as a notification.
    const progress: string[] = [];
    const blocked = await mcp.client.callTool(
      { ...create("mcp-blocking"), arguments: { ...create("").arguments, name: "mcp-blocking", wait: true } },
      undefined,
      {
        onprogress: (p: { message?: string }) => void progress.push(p.message ?? ""),
      },
    );
    assertEquals(JSON.parse(textOf(blocked)).name, "mcp-blocking", textOf(blocked));
    assert(progress.some((line) => /^Task \S+: processing-completed$/.test(line)), `progress: ${progress}`);
  },

  async "mcp serve: tasks/get tells the cloud task's state; tasks/cancel stops the waiting, not the server"(world) {
    await using slow = await startEmulator(["--real-api", "--task-delay-ms", "60000"]);
    await using mcp = await mcpClient({ ...world, emulator: slow }, "--policy", "read-write");
    const subscription = String(JSON.parse(textOf(
      await mcp.client.callTool({
        name: "cloud_subscription_list",
        arguments: { query: "[0].id" },
      }),
    )));
    const stream = mcp.client.experimental.tasks.callToolStream(
      {
        name: "cloud_database_create",
        arguments: { subscription, name: "mcp-cancelled", dataset_size_gb: "1", wait_interval: "0.1" },
      },
      undefined,
      { task: { ttl: 60_000 } },
    );
    const first = (await stream.next()).value as { type: string; task: { taskId: string } };
    assertEquals(first.type, "taskCreated");
    const { taskId } = first.task;
    let seen = { status: "", statusMessage: "" };
    await until(() => `a state of the cloud task (last: ${JSON.stringify(seen)})`, async () => {
      seen = await mcp.client.experimental.tasks.getTask(taskId) as typeof seen;
      return seen.status === "working" && /^Task \S+: \S+/.test(seen.statusMessage ?? "");
    });
    assertEquals((await mcp.client.experimental.tasks.cancelTask(taskId)).status, "cancelled");
    await stream.return(undefined);
    assertEquals((await mcp.client.experimental.tasks.getTask(taskId)).status, "cancelled");
    const after = await mcp.client.callTool({ name: "cloud_subscription_list", arguments: { query: "length(@)" } });
    assert(!after.isError, textOf(after));
  },
};
