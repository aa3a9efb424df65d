import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { testApp, testService } from "../testing/service.ts";
import { until } from "../testing/until.ts";
import { createMemoryStore } from "../lib/store/mod.ts";

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
  body: JSON.stringify(body),
});
const a2aMessage = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello" }] };
const rpc = (method: string, params: unknown) => json({ jsonrpc: "2.0", id: 7, method, params });

/** Every way to start work or a stream, each answering as it does while the service serves. */
const NEW_WORK: [
  what: string,
  path: string,
  init: (taskId: string) => RequestInit,
  form: "problem" | "jsonrpc" | "rest",
][] = [
  ["POST /tasks", "/tasks", () => json({ kind: "demo", input: { steps: 0 } }), "problem"],
  [
    "POST /pipelines/documents",
    "/pipelines/documents",
    () => json({ title: "T", content: "hello", source: "s" }),
    "problem",
  ],
  ["a task stream", "/tasks/{id}/stream", () => ({}), "problem"],
  ["a session stream", "/sessions/s1/stream", () => ({}), "problem"],
  ["A2A SendMessage", "/a2a/jsonrpc", () => rpc("SendMessage", { message: a2aMessage }), "jsonrpc"],
  ["A2A SendStreamingMessage", "/a2a/jsonrpc", () => rpc("SendStreamingMessage", { message: a2aMessage }), "jsonrpc"],
  ["A2A SubscribeToTask", "/a2a/jsonrpc", (id) => rpc("SubscribeToTask", { id }), "jsonrpc"],
  ["A2A message:send", "/a2a/rest/message:send", () => json({ message: a2aMessage }), "rest"],
  ["A2A message:stream", "/a2a/rest/message:stream", () => json({ message: a2aMessage }), "rest"],
  [
    "MCP submit_demo",
    "/mcp",
    () => rpc("tools/call", { name: "submit_demo", arguments: { input: { steps: 0 } } }),
    "jsonrpc",
  ],
];

Deno.test("while draining, every way to start work or a stream is a 503 with Retry-After, in its binding's error form; reads still answer", async () => {
  await using t = testApp({ env: { DRAIN_RETRY_MS: "1500" } });
  // A task that never ends: its stream stays open until the drain.
  const held = await t.service.scope().runner.submit({ kind: "demo", input: { steps: 0, ask: "?" } });
  const path = (p: string) => p.replace("{id}", held.task_id);
  for (const [what, p, init] of NEW_WORK) {
    const res = await t.app.request(path(p), init(held.task_id));
    const before = res.headers.get("content-type")?.includes("json") ? await res.json() : await res.body?.cancel();
    assertEquals(
      [res.status, before?.error],
      [p === "/tasks" || p.startsWith("/pipelines") ? 201 : 200, undefined],
      what,
    );
  }
  const open = await t.app.request(`/tasks/${held.task_id}/stream`);

  await t.service.drain();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, no) =>
    timer = setTimeout(() => no(new Error("the open stream did not end")), 5_000)
  );
  const text = await Promise.race([open.text(), late]).finally(() => clearTimeout(timer));
  assertMatch(text, /retry: 1500\n: this server is shutting down; reconnect with Last-Event-ID[^\n]*\n\n$/);
  for (const [what, p, init, form] of NEW_WORK) {
    const res = await t.app.request(path(p), init(held.task_id));
    const text = await res.text();
    assertEquals([res.status, res.headers.get("retry-after")], [503, "2"], `${what}: ${text}`);
    const body = JSON.parse(text);
    if (form === "problem") {
      assertEquals(res.headers.get("content-type"), "application/problem+json", what);
      assertMatch(body.detail, /shutting down.*retry in 2 s/, what);
    } else if (form === "jsonrpc") {
      assertEquals([body.jsonrpc, body.id, body.error.code], ["2.0", 7, -32000], what);
      assertMatch(body.error.message, /shutting down/, what);
    } else {
      assertEquals([body.error.code, body.error.status], [503, "UNAVAILABLE"], what);
      assertEquals(body.error.details.find((d: { retryDelay?: string }) => d.retryDelay)?.retryDelay, "2s", what);
    }
  }
  assertEquals((await t.app.request(`/tasks/${held.task_id}`)).status, 200, "a read still answers");
  const answered = await t.app.request(`/tasks/${held.task_id}/input`, json({ input: "yes" }));
  assertEquals(answered.status, 200, "work already here can still be answered (another process runs it)");
  assertEquals((await t.app.request("/readyz")).status, 503);
});

Deno.test("drain() hands the running tasks back at once: another process's runner takes them before any lease runs out", async () => {
  const store = createMemoryStore();
  const lease = { TASK_LEASE_SECONDS: "3600" }; // taken over only if handed back
  await using a = testService({ store, env: lease });
  const running = await a.scope().runner.submit({ kind: "demo", input: { steps: 1_000, delay_ms: 20 } });
  await until("it runs on A", async () => ((await store.tasks.get(running.task_id))?.updates.length ?? 0) > 1);
  await a.drain();
  // A scope made while draining (a tenant's first request) takes no work either.
  const late = a.scope("late-tenant");
  await late.runner.submit({ kind: "demo", input: { steps: 0 } }).then(
    () => assert(false, "a submit while draining is refused"),
    (error) => assertMatch(error.message, /shutting down/),
  );
  await using b = testService({ store, env: lease });
  b.start();
  await until("B restarts it", async () => {
    const updates = (await store.tasks.get(running.task_id))?.updates ?? [];
    return updates.some((u) => /restarted \(attempt 2\)/.test(String(u.message)));
  }, 5_000);
});
