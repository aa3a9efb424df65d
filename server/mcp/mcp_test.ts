import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { assert, assertEquals, assertMatch, assertRejects } from "../../testing/assert.ts";
import { mcpClient, startTask, structuredOf as structured, textOf, toolsOf } from "../../testing/mcp_client.ts";
import { testApp, type TestServiceOptions } from "../../testing/service.ts";
import { testTokens } from "../../testing/auth_tokens.ts";
import { until } from "../../testing/until.ts";
import { createTokenSet, parseTokens } from "../auth/tokens.ts";

/** The service on a real HTTP listener, and MCP clients of it (with `token`, when given), closed with it. */
function serve(options: TestServiceOptions = {}) {
  const served = testApp(options);
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, served.app.fetch);
  const url = `http://127.0.0.1:${server.addr.port}`;
  const clients: AsyncDisposable[] = [];
  return {
    url,
    async client(token?: string) {
      const mcp = await mcpClient(url, token);
      clients.push(mcp);
      return mcp.client;
    },
    async [Symbol.asyncDispose]() {
      await Promise.all(clients.map((c) => c[Symbol.asyncDispose]()));
      await server.shutdown();
      await served.service.close();
    },
  };
}

Deno.test("/mcp: a tool per kind with its schema, the task tools; a blocking submit answers with the result", async () => {
  await using service = serve();
  const client = await service.client();
  const tools = await toolsOf(client);
  const names = tools.map((t) => t.name);
  for (const name of ["submit_demo", "submit_answer", "get_task", "list_tasks", "cancel_task", "answer_task"]) {
    assert(names.includes(name), `${name} among ${names}`);
  }
  const demo = tools.find((t) => t.name === "submit_demo")!;
  assertEquals(demo.execution, { taskSupport: "optional" });
  assertEquals((demo.inputSchema.properties!.input as { properties: Record<string, unknown> }).properties.steps, {
    type: "integer",
    minimum: 0,
    maximum: 1000,
    default: 3,
  });

  const progress: string[] = [];
  const done = await client.callTool(
    { name: "submit_demo", arguments: { input: { steps: 2, delay_ms: 0, tokens: ["Hello", " MCP"] } } },
    undefined,
    { onprogress: (p: { message?: string }) => void progress.push(p.message ?? "") },
  );
  assertEquals(textOf(done), "Hello MCP");
  assertEquals(structured(done).status, "done");
  assertEquals(progress, ["step 1 of 2", "step 2 of 2"]);

  const bad = await client.callTool({ name: "submit_demo", arguments: { input: { steps: "many" } } });
  assertEquals(bad.isError, true);
  assertMatch(textOf(bad), /steps/);
  const got = await client.callTool({ name: "get_task", arguments: { task_id: structured(done).task_id } });
  assertEquals(JSON.parse(textOf(got)).mcp.status, "completed");
  const missing = await client.callTool({ name: "get_task", arguments: { task_id: "nope" } });
  assertEquals(missing.isError, true);
});

Deno.test("/mcp as MCP tasks: submit → input_required → answer_task → completed; tasks/cancel cancels", async () => {
  await using service = serve();
  const client = await service.client();
  const created = { task: await startTask(client, "submit_demo", { input: { steps: 0, ask: "Which colour?" } }) };
  const { taskId } = created.task;
  let task = { status: "", statusMessage: "" };
  await until(() => `input_required (last: ${JSON.stringify(task)})`, async () => {
    task = await client.experimental.tasks.getTask(taskId) as typeof task;
    return task.status === "input_required";
  });
  assertEquals(task.statusMessage, "Which colour?");
  const answered = await client.callTool({ name: "answer_task", arguments: { task_id: taskId, answer: "blue" } });
  assertEquals((structured(answered).result as { input: string }).input, "blue");
  assertEquals((await client.experimental.tasks.getTask(taskId)).status, "completed");
  const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
  assertEquals(structured(result).status, "done");

  const long = { task: await startTask(client, "submit_demo", { input: { steps: 100, delay_ms: 1_000 } }) };
  assertEquals((await client.experimental.tasks.cancelTask(long.task.taskId)).status, "cancelled");
  const listed = await client.experimental.tasks.listTasks();
  assertEquals(listed.tasks.find((t: { taskId: string }) => t.taskId === long.task.taskId)?.status, "cancelled");
});

Deno.test("/mcp with tokens: a token sees its scopes' tools and its tenant's tasks only; none is a 401", async () => {
  const tokens = testTokens();
  await using service = serve({ tokens: createTokenSet(parseTokens(tokens.file, "test")) });
  const reader = await service.client(tokens.only["tasks:read"]);
  const names = (await toolsOf(reader)).map((t) => t.name);
  assertEquals(names.filter((n) => n.startsWith("submit_") || n === "cancel_task"), []);
  assert(names.includes("get_task") && !names.includes("search_documents"), `${names}`);
  const refused = await assertRejects(() => reader.callTool({ name: "submit_demo", arguments: { input: {} } }));
  assertMatch(refused.message, /needs the scope 'tasks:write'/);

  const admin = await service.client(tokens.admin);
  const made = await admin.callTool({ name: "submit_demo", arguments: { input: { steps: 0 } } });
  const taskId = structured(made).task_id;
  const stranger = await service.client(tokens.stranger);
  const seen = await stranger.callTool({ name: "get_task", arguments: { task_id: taskId } });
  assertEquals(seen.isError, true);
  assertEquals(JSON.parse(textOf(await stranger.callTool({ name: "list_tasks", arguments: {} }))).tasks, []);
  await assertRejects(() => stranger.experimental.tasks.getTask(String(taskId)));

  const anonymous = await fetch(`${service.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  assertEquals(anonymous.status, 401);
  await anonymous.body?.cancel();
});

Deno.test("/mcp ask: the answer from the documents, with its sources; search_documents finds them", async () => {
  await using service = serve();
  const added = await fetch(`${service.url}/pipelines/documents`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ title: "Backups", source: "docs/backups.md", content: "Backups run every night at two." }),
  });
  assert(added.ok, await added.text());
  const client = await service.client();
  let hits: unknown[] = [];
  await until("the document is searchable", async () => {
    const found = await client.callTool({ name: "search_documents", arguments: { query: "backups night" } });
    hits = (structured(found).hits ?? []) as unknown[];
    return hits.length > 0;
  });
  const answer = await client.callTool({ name: "ask", arguments: { question: "When do backups run?" } });
  assertEquals(structured(answer).status, "done", textOf(answer));
  assertMatch(textOf(answer), /two/);
  const sources = (structured(answer).result as { sources: { source: string }[] }).sources;
  assertEquals(sources.map((s) => s.source), ["docs/backups.md"]);
});
