import { assert, assertEquals, assertMatch, assertRejects } from "../../testing/assert.ts";
import {
  a2aClient,
  type Binding,
  BINDINGS,
  collect,
  message,
  outputOf,
  pushConfigTo,
  returnImmediately,
  type StreamResponse,
  TaskState,
  textOf,
} from "../../testing/a2a_client.ts";
import { testApp, type TestServiceOptions } from "../../testing/service.ts";
import { testTokens } from "../../testing/auth_tokens.ts";
import { createTokenSet, parseTokens } from "../auth/tokens.ts";
import { until } from "../../testing/until.ts";
import { EXTENSIONS } from "./card.ts";
import { startReceiver } from "../../testing/webhook_receiver.ts";

/** The service on a real HTTP listener (the client fetches its card and calls it over HTTP). */
function serve(options: TestServiceOptions = {}) {
  const served = testApp(options);
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, served.app.fetch);
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    service: served.service,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      await served.service.close();
    },
  };
}

const states = (responses: StreamResponse[]) =>
  responses.map((r) =>
    r.payload?.$case === "statusUpdate"
      ? TaskState[r.payload.value.status!.state]
      : r.payload?.$case === "artifactUpdate"
      ? `artifact:${r.payload.value.artifact!.artifactId}`
      : r.payload?.$case
  );

Deno.test("the agent card: both bindings, streaming, a skill per kind with its schema, no security when open", async () => {
  await using server = serve();
  const card = await (await fetch(`${server.url}/.well-known/agent-card.json`)).json();
  assertEquals(card.supportedInterfaces.map((i: { protocolBinding: string }) => i.protocolBinding), [
    "JSONRPC",
    "HTTP+JSON",
  ]);
  assertEquals(card.supportedInterfaces[0].url, `${server.url}/a2a/jsonrpc`);
  assertEquals(card.capabilities.streaming, true);
  assertEquals(card.skills.map((s: { id: string }) => s.id), server.service.kinds.map((k) => k.kind));
  const schemas = card.capabilities.extensions.find((e: { uri: string }) => e.uri === EXTENSIONS.skillInput);
  assertEquals(schemas.params.schemas.demo.properties.steps.type, "integer");
  assertEquals(card.securitySchemes, undefined);
});

Deno.test("the agent card names the bearer scheme when the service has tokens; A2A_ENABLED=false turns A2A off", async () => {
  const tokens = testTokens();
  {
    await using server = serve({ tokens: createTokenSet(parseTokens(tokens.file, "test")) });
    const card = await (await fetch(`${server.url}/.well-known/agent-card.json`)).json();
    assertEquals(card.securitySchemes.bearer.httpAuthSecurityScheme.scheme, "Bearer");
    assertEquals(card.securityRequirements[0].schemes.bearer.list, ["tasks:read", "tasks:write"]);
  }
  await using off = serve({ env: { A2A_ENABLED: "false" } });
  assertEquals((await fetch(`${off.url}/.well-known/agent-card.json`, { method: "GET" })).status, 404);
  const rpc = await fetch(`${off.url}/a2a/jsonrpc`, {
    method: "POST",
    headers: { "content-type": "application/json" },
  });
  assertEquals(rpc.status, 404);
  await rpc.body?.cancel();
});

Deno.test("an A2A_DEFAULT_KIND that is no task kind stops the service at start, naming the kinds", () => {
  let message = "";
  try {
    serve({ env: { A2A_DEFAULT_KIND: "nope" } });
  } catch (error) {
    message = (error as Error).message;
  }
  assert(message.includes("A2A_DEFAULT_KIND 'nope' is not a task kind") && message.includes("demo"), message);
});

for (const binding of BINDINGS) {
  Deno.test(`A2A over ${binding} with the official client`, async (t) => {
    await using server = serve();
    const client = await a2aClient(server.url, binding);

    await t.step("SendMessage waits for the task to complete: result artifact, history, context", async () => {
      const reply = await client.sendMessage({
        message: message({ text: "Hello there world" }, { skill: "demo" }),
      } as never);
      assert("status" in reply);
      assertEquals(reply.status!.state, TaskState.TASK_STATE_COMPLETED);
      const result = reply.artifacts.find((a) => a.artifactId === "result")!;
      assertEquals(textOf(result.parts), "Hello there world");
      assertEquals(reply.history[0].role, 1);
      assert(reply.contextId.length > 0);
      assertEquals(reply.metadata?.kind, "demo");
    });

    await t.step("returnImmediately answers while it works", async () => {
      const reply = await client.sendMessage({
        message: message({ data: { steps: 2, delay_ms: 200 } }, { skill: "demo" }),
        configuration: returnImmediately,
      } as never);
      assert("status" in reply);
      assertEquals(reply.status!.state, TaskState.TASK_STATE_WORKING);
    });

    await t.step("a message naming no skill runs A2A_DEFAULT_KIND (answer): no documents, so it asks", async () => {
      const reply = await client.sendMessage({ message: message({ text: "What is a snapshot?" }) } as never);
      assert("status" in reply);
      assertEquals(reply.metadata?.kind, "answer");
      assertEquals(reply.status!.state, TaskState.TASK_STATE_INPUT_REQUIRED);
      assert(textOf(reply.status!.message!.parts).startsWith("No document matches"));
      await client.cancelTask({ id: reply.id, tenant: "", metadata: undefined });
    });

    await t.step("SendStreamingMessage: the task, progress, appended tokens, the result, completed", async () => {
      const responses = await collect(client.sendMessageStream({
        message: message({ text: "one two three" }, { skill: "demo" }),
      } as never));
      assertEquals(states(responses), [
        "task",
        "TASK_STATE_WORKING",
        "TASK_STATE_WORKING",
        "TASK_STATE_WORKING",
        "artifact:output",
        "artifact:output",
        "artifact:output",
        "artifact:result",
        "TASK_STATE_COMPLETED",
      ]);
      assertEquals(outputOf(responses), "one two three");
      const chunks = responses.filter((r) => r.payload?.$case === "artifactUpdate").map((r) => r.payload!.value);
      assertEquals(chunks.map((c) => "append" in c && c.append), [false, true, true, false]);
    });

    await t.step("a stream of 2,000 tokens arrives whole (stored events go out as the client takes them)", async () => {
      const tokens = Array.from({ length: 2_000 }, (_, i) => `w${i} `);
      const responses = await collect(client.sendMessageStream({
        message: message({ data: { steps: 0, delay_ms: 0, tokens } }, { skill: "demo" }),
      } as never));
      assertEquals(outputOf(responses), tokens.join(""));
      assertEquals(states(responses).at(-1), "TASK_STATE_COMPLETED");
    });

    await t.step("input-required: the question ends the wait, a message to the task answers it", async () => {
      const asked = await client.sendMessage({
        message: message({ data: { steps: 0, ask: "Which colour?" } }, { skill: "demo" }),
      } as never);
      assert("status" in asked);
      assertEquals(asked.status!.state, TaskState.TASK_STATE_INPUT_REQUIRED);
      assertEquals(textOf(asked.status!.message!.parts), "Which colour?");
      const answered = await client.sendMessage({
        message: message({ text: "blue" }, { taskId: asked.id, contextId: asked.contextId }),
      } as never);
      assert("status" in answered);
      assertEquals(answered.status!.state, TaskState.TASK_STATE_COMPLETED);
      const result = answered.artifacts.find((a) => a.artifactId === "result")!;
      const data = result.parts.find((p) => p.content?.$case === "data")!.content!.value as { input: string };
      assertEquals(data.input, "blue");
      const again = client.sendMessage({ message: message({ text: "red" }, { taskId: asked.id }) } as never);
      const late = await assertRejects(() => again);
      assertEquals((late as Error).name, "UnsupportedOperationError");
      assert((late as Error).message.includes("is done"), (late as Error).message);
    });

    await t.step("GetTask with historyLength; an unknown task is TaskNotFoundError", async () => {
      const reply = await client.sendMessage({ message: message({ text: "a b" }, { skill: "demo" }) } as never);
      assert("status" in reply);
      const full = await client.getTask({ id: reply.id, tenant: "" });
      assertEquals(full.history.length, 4); // the input, three progress updates
      // A result that is only its answer is a text part; no data part repeats it.
      const result = full.artifacts.find((a) => a.artifactId === "result")!;
      assertEquals(result.parts.map((p) => p.content?.$case), ["text"]);
      assertEquals(textOf(result.parts), "a b");
      assertEquals((await client.getTask({ id: reply.id, tenant: "", historyLength: 1 })).history.length, 1);
      assertEquals((await client.getTask({ id: reply.id, tenant: "", historyLength: 0 })).history.length, 0);
      const missing = await assertRejects(() => client.getTask({ id: "no-such-task", tenant: "" }));
      assertEquals((missing as Error).name, "TaskNotFoundError");
    });

    await t.step("ListTasks: by context, by state, page by page, changed since", async () => {
      const contextId = `ctx-${binding}`;
      for (const text of ["x", "y", "z"]) {
        await client.sendMessage({ message: message({ text }, { skill: "demo", contextId }) } as never);
      }
      const list = (params: Record<string, unknown>) =>
        client.listTasks({ tenant: "", contextId, status: 0, pageToken: "", ...params } as never);
      const all = await list({});
      assertEquals(all.tasks.length, 3);
      assertEquals(all.totalSize, 3);
      const first = await list({ pageSize: 2 });
      assertEquals(first.tasks.length, 2);
      const second = await list({ pageSize: 2, pageToken: first.nextPageToken });
      assertEquals(second.tasks.length, 1);
      assertEquals(second.nextPageToken, "");
      assertEquals(
        new Set([...first.tasks, ...second.tasks].map((t) => t.id)),
        new Set(all.tasks.map((t) => t.id)),
      );
      assertEquals((await list({ status: TaskState.TASK_STATE_COMPLETED })).tasks.length, 3);
      assertEquals((await list({ status: TaskState.TASK_STATE_WORKING })).tasks.length, 0);
      assertEquals((await list({ statusTimestampAfter: new Date(Date.now() + 60_000).toISOString() })).tasks.length, 0);
      assertEquals((await list({ statusTimestampAfter: "2000-01-01T00:00:00Z" })).tasks.length, 3);
    });

    await t.step("CancelTask cascades to sub-tasks; a finished task is TaskNotCancelableError", async () => {
      const started = await client.sendMessage({
        message: message({ data: { steps: 50, delay_ms: 1000, children: 2 } }, { skill: "demo" }),
        configuration: returnImmediately,
      } as never);
      assert("status" in started);
      const family = () =>
        client.listTasks({ tenant: "", contextId: started.contextId, status: 0, pageToken: "" } as never);
      await until("both sub-tasks start", async () => (await family()).tasks.length === 3);
      const cancelled = await client.cancelTask({ id: started.id, tenant: "", metadata: undefined });
      assertEquals(cancelled.status!.state, TaskState.TASK_STATE_CANCELED);
      const after = await family();
      assertEquals(after.tasks.map((t) => t.status!.state), Array(3).fill(TaskState.TASK_STATE_CANCELED));
      assertEquals(after.tasks.filter((t) => t.metadata?.parentId === started.id).length, 2);
      const again = await assertRejects(() => client.cancelTask({ id: started.id, tenant: "", metadata: undefined }));
      assertEquals((again as Error).name, "TaskNotCancelableError");
    });

    await t.step("CancelTask with metadata.cascade false leaves the sub-tasks running", async () => {
      const started = await client.sendMessage({
        message: message({ data: { steps: 50, delay_ms: 1000, children: 1 } }, { skill: "demo" }),
        configuration: returnImmediately,
      } as never);
      assert("status" in started);
      const family = () =>
        client.listTasks({ tenant: "", contextId: started.contextId, status: 0, pageToken: "" } as never);
      await until("the sub-task starts", async () => (await family()).tasks.length === 2);
      if (binding === "JSONRPC") {
        await client.cancelTask({ id: started.id, tenant: "", metadata: { cascade: false } });
      } else { // the client sends no body with a REST cancel
        const res = await fetch(`${server.url}/a2a/rest/tasks/${started.id}:cancel`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ metadata: { cascade: false } }),
        });
        assertEquals((await res.json()).status.state, "TASK_STATE_CANCELED");
      }
      const child = (await family()).tasks.find((t) => t.id !== started.id)!;
      assertEquals(child.status!.state, TaskState.TASK_STATE_WORKING);
      await client.cancelTask({ id: child.id, tenant: "", metadata: undefined });
    });

    await t.step("SubscribeToTask: the task with the tokens so far, then the rest, nothing twice", async () => {
      const tokens = Array.from({ length: 40 }, (_, i) => `t${i} `);
      const started = await client.sendMessage({
        message: message({ data: { steps: 2, delay_ms: 300, tokens } }, { skill: "demo" }),
        configuration: returnImmediately,
      } as never);
      assert("status" in started);
      const responses = await collect(client.resubscribeTask({ id: started.id, tenant: "" }));
      assertEquals(responses[0].payload?.$case, "task");
      assertEquals(outputOf(responses), tokens.join(""));
      assertEquals(states(responses).at(-1), "TASK_STATE_COMPLETED");
      const finished = await assertRejects(() => collect(client.resubscribeTask({ id: started.id, tenant: "" })));
      assertEquals((finished as Error).name, "UnsupportedOperationError");
    });

    await t.step("errors: an unknown skill and a bad input are RequestMalformedError naming the problem", async () => {
      const unknown = await assertRejects(() =>
        client.sendMessage({ message: message({ text: "hi" }, { skill: "nope" }) } as never)
      );
      assertEquals((unknown as Error).name, "RequestMalformedError");
      assert((unknown as Error).message.includes("Unknown skill 'nope'"), (unknown as Error).message);
      const bad = await assertRejects(() =>
        client.sendMessage({ message: message({ data: { steps: "many" } }, { skill: "demo" }) } as never)
      );
      assert((bad as Error).message.includes("steps"), (bad as Error).message);
      const text = await assertRejects(() =>
        client.sendMessage({ message: message({ text: "go" }, { skill: "pipeline_run" }) } as never)
      );
      assert((text as Error).message.includes("data part"), (text as Error).message);
    });
  });
}

/** A raw JSON-RPC call: its HTTP status and body. */
async function rpc(url: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/a2a/jsonrpc`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  return { status: res.status, body: await res.json() };
}

Deno.test("a request that is not JSON-RPC gets JSON-RPC's error, never a 500", async () => {
  await using server = serve();
  const cases: [body: string, code: number, headers?: Record<string, string>][] = [
    ["{not json", -32700],
    ["[]", -32600],
    ['{"jsonrpc":"1.0","method":"GetTask","id":1}', -32600],
    ['{"jsonrpc":"2.0","method":"GetTask","id":{"a":1}}', -32600],
    ['{"jsonrpc":"2.0","method":"Nope","id":1}', -32601],
    ['{"jsonrpc":"2.0","method":"toString","id":1}', -32601],
    ['{"jsonrpc":"2.0","method":"GetTask","id":1,"params":[1]}', -32602],
    ['{"jsonrpc":"2.0","method":"GetTask","id":1,"params":{}}', -32602],
    ['{"jsonrpc":"2.0","method":"GetTask","id":1,"params":{"id":"x"}}', -32001],
    ['{"jsonrpc":"2.0","method":"GetTask","id":1,"params":{"id":"x"}}', -32009, { "a2a-version": "0.3" }],
    ['{"jsonrpc":"2.0","method":"GetExtendedAgentCard","id":1}', -32007],
  ];
  for (const [body, code, headers] of cases) {
    const answer = await rpc(server.url, body, headers);
    assertEquals([answer.status, answer.body.error?.code], [200, code], body);
    assertEquals(answer.body.jsonrpc, "2.0");
  }
  const text = await fetch(`${server.url}/a2a/jsonrpc`, {
    method: "POST",
    headers: { "content-type": "text/plain" },
    body: "{}",
  });
  assertEquals(text.status, 415);
  await text.body?.cancel();
});

Deno.test("a reconnect with Last-Event-ID gets the events after it, on both bindings (and is counted)", async () => {
  await using server = serve({ env: { METRICS_PORT: "0" } });
  const client = await a2aClient(server.url, "JSONRPC");
  const started = await client.sendMessage({
    message: message({ data: { steps: 1, delay_ms: 0, tokens: ["a", "b", "c", "d"], ask: "more?" } }, {
      skill: "demo",
    }),
  } as never);
  assert("status" in started);
  const ids = async (res: Response) => [...(await res.text()).matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  const viaRpc = await fetch(`${server.url}/a2a/jsonrpc`, {
    method: "POST",
    headers: { "content-type": "application/json", "last-event-id": "2", accept: "text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "SubscribeToTask", params: { id: started.id } }),
  });
  const viaRest = await fetch(`${server.url}/a2a/rest/tasks/${started.id}:subscribe`, {
    method: "POST",
    headers: { "last-event-id": "2" },
  });
  // The question is asked; answering it ends the subscriptions.
  await client.sendMessage({ message: message({ text: "yes" }, { taskId: started.id }) } as never);
  // Tokens 3–5, the question (6), the answer's update (7), then the result and completed, both of event 8: the
  // id goes on the last frame of an event, so a client cut off between them comes back for both.
  const expected = [3, 4, 5, 6, 7, 8];
  assertEquals(await ids(viaRpc), expected);
  assertEquals(await ids(viaRest), expected);
  const { text } = await server.service.metrics!.render();
  assertMatch(text, /^storectl_stream_resumes_total\{channel="a2a"\} 2$/m);
});

Deno.test("A2A keeps the service's access control: tokens, scopes and tenants", async () => {
  const tokens = testTokens();
  await using server = serve({ tokens: createTokenSet(parseTokens(tokens.file, "test")) });
  const writer = await a2aClient(server.url, "JSONRPC", tokens.allBut["pipelines:read"]);
  const reply = await writer.sendMessage({ message: message({ text: "mine" }, { skill: "demo" }) } as never);
  assert("status" in reply);
  for (const binding of BINDINGS as readonly Binding[]) {
    const other = await a2aClient(server.url, binding, tokens.stranger);
    const hidden = await assertRejects(() => other.getTask({ id: reply.id, tenant: "" }));
    assertEquals((hidden as Error).name, "TaskNotFoundError", binding);
    assertEquals((await other.listTasks({ tenant: "", status: 0, pageToken: "" } as never)).tasks.length, 0);
    const reader = await a2aClient(server.url, binding, tokens.only["tasks:read"]);
    assertEquals((await reader.getTask({ id: reply.id, tenant: "" })).id, reply.id);
    const refused = await assertRejects(() =>
      reader.sendMessage({ message: message({ text: "no" }, { skill: "demo" }) } as never)
    );
    assert((refused as Error).message.includes("403"), (refused as Error).message);
    const writeOnly = await a2aClient(server.url, binding, tokens.only["tasks:write"]);
    const sent = await writeOnly.sendMessage({ message: message({ text: "ok" }, { skill: "demo" }) } as never);
    assert("status" in sent); // as POST /tasks: sending needs tasks:write only, and answers the task
    const blind = await assertRejects(() => writeOnly.getTask({ id: reply.id, tenant: "" }));
    assert((blind as Error).message.includes("403"), (blind as Error).message);
    if (binding === "JSONRPC") { // the JSON-RPC client shows the body: the problem names the scope
      assert((refused as Error).message.includes("lacks the scope 'tasks:write'"), (refused as Error).message);
      assert((blind as Error).message.includes("lacks the scope 'tasks:read'"), (blind as Error).message);
    }
    const stranger = await a2aClient(server.url, binding);
    const unauthorized = await assertRejects(() => stranger.getTask({ id: reply.id, tenant: "" }));
    assert((unauthorized as Error).message.includes("401"), (unauthorized as Error).message);
  }
});

Deno.test("A2A push notifications: configs made, read, listed and deleted by the official client; deliveries carry A2A's task", async () => {
  await using receiver = startReceiver();
  await using server = serve({ env: { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_HOSTS: "127.0.0.1" } });
  const card = await (await fetch(`${server.url}/.well-known/agent-card.json`)).json();
  assertEquals(card.capabilities.pushNotifications, true);
  for (const binding of BINDINGS) {
    receiver.received.length = 0;
    const client = await a2aClient(server.url, binding);
    const started = await client.sendMessage({
      message: message({ data: { steps: 2, delay_ms: 300, tokens: ["ok"] } }, { skill: "demo" }),
      configuration: returnImmediately,
    } as never);
    assert("status" in started);
    const config = await client.createTaskPushNotificationConfig(
      pushConfigTo(started.id, `${receiver.url}/a2a`, { token: "receiver-token" }),
    );
    assert(config.id.length > 0);
    assertEquals(
      (await client.getTaskPushNotificationConfig({ tenant: "", taskId: started.id, id: config.id })).url,
      `${receiver.url}/a2a`,
    );
    const listed = await client.listTaskPushNotificationConfig({
      tenant: "",
      taskId: started.id,
      pageSize: 0,
      pageToken: "",
    });
    assertEquals(listed.configs.map((c) => c.id), [config.id]);
    await until(`the completed task is pushed (${binding})`, () => receiver.received.length === 1);
    const [pushed] = receiver.received;
    assertEquals(pushed.headers["x-a2a-notification-token"], "receiver-token");
    assertEquals(pushed.headers["content-type"], "application/a2a+json");
    assertMatch(pushed.headers["webhook-signature"], /^v1,/);
    const body = JSON.parse(pushed.body);
    assertEquals([body.task.id, body.task.status.state], [started.id, "TASK_STATE_COMPLETED"]);
    await client.deleteTaskPushNotificationConfig({ tenant: "", taskId: started.id, id: config.id });
    const gone = await assertRejects(() =>
      client.getTaskPushNotificationConfig({ tenant: "", taskId: started.id, id: config.id })
    );
    assertEquals((gone as Error).name, "TaskNotFoundError");
    const refused = await assertRejects(() =>
      client.createTaskPushNotificationConfig(pushConfigTo(started.id, "http://10.0.0.1/hook"))
    );
    assert((refused as Error).message.includes("private"), (refused as Error).message);
  }
});

Deno.test("A2A push notifications: a config in SendMessage is told of its task's end, with the credentials given", async () => {
  await using receiver = startReceiver();
  await using server = serve({ env: { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_HOSTS: "127.0.0.1" } });
  const client = await a2aClient(server.url, "JSONRPC");
  const reply = await client.sendMessage({
    message: message({ text: "fast" }, { skill: "demo" }),
    configuration: {
      returnImmediately: false,
      acceptedOutputModes: [],
      taskPushNotificationConfig: pushConfigTo("", `${receiver.url}/send`, {
        authentication: { scheme: "Bearer", credentials: "receiver-secret" },
      }),
    },
  } as never);
  assert("status" in reply);
  await until("the end is pushed", () => receiver.received.length === 1);
  assertEquals(receiver.received[0].headers.authorization, "Bearer receiver-secret");
  assertEquals(JSON.parse(receiver.received[0].body).task.id, reply.id);
});

Deno.test("A2A push notifications where webhooks are off: PushNotificationNotSupportedError", async () => {
  await using server = serve({ env: { WEBHOOKS_ENABLED: "false" } });
  const client = await a2aClient(server.url, "HTTP+JSON");
  const reply = await client.sendMessage({ message: message({ text: "x" }, { skill: "demo" }) } as never);
  assert("status" in reply);
  const refused = await assertRejects(async () =>
    await client.createTaskPushNotificationConfig(pushConfigTo(reply.id, "https://receiver.example/"))
  );
  assertEquals((refused as Error).name, "PushNotificationNotSupportedError"); // the client reads the card
  const raw = await fetch(`${server.url}/a2a/rest/tasks/${reply.id}/pushNotificationConfigs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url: "https://receiver.example/" }),
  });
  assertEquals(raw.status, 400);
  assertEquals((await raw.json()).error.details[0].reason, "PUSH_NOTIFICATION_NOT_SUPPORTED");
});
