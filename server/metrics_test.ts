import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { testApp } from "../testing/service.ts";
import { missingTools, requireTool } from "../testing/tools.ts";
import { until } from "../testing/until.ts";
import { metricsFetch } from "./metrics.ts";
import { createMemoryStore } from "../lib/store/mod.ts";
import { testTokens } from "../testing/auth_tokens.ts";
import { startReceiver } from "../testing/webhook_receiver.ts";
import { createTokenSet, parseTokens } from "./mod.ts";

/** The value of `name{labels}` in an exposition, or undefined. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line === undefined ? undefined : Number(line.split(" ").at(-1));
}

Deno.test("metrics: requests by route template (never a raw path), rate-limit decisions, tasks by kind", async () => {
  await using served = testApp({ env: { METRICS_PORT: "0", RATE_LIMIT_MAX: "1" } });
  const { app, service } = served;
  const basic = { authorization: `Basic ${btoa("alice:x")}` };
  for (const path of ["/tasks/t-1", "/tasks/t-2", "/nowhere"]) await (await app.request(path)).body?.cancel();
  for (let i = 0; i < 2; i++) await (await app.request("/api/RateLimited/sliding", { headers: basic })).body?.cancel();
  const made = await app.request("/tasks", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ kind: "demo", input: { steps: 0 } }),
  });
  assertEquals(made.status, 201);
  const scrape = metricsFetch(service.metrics!);
  let text = "";
  await until("the task's end is counted", async () => {
    text = await (await scrape(new Request("http://metrics/metrics"))).text();
    return sample(text, "storectl_tasks_finished_total", 'kind="demo",outcome="done"') === 1;
  });
  const count = "storectl_http_request_duration_seconds_count";
  assertEquals(sample(text, count, 'method="GET",route="/tasks/:task_id",status="404"'), 2);
  assertEquals(sample(text, count, 'route="unmatched",status="404"'), 1);
  assertEquals(sample(text, count, 'method="POST",route="/tasks",status="201"'), 1);
  assertEquals(sample(text, count, 'route="/api/RateLimited/sliding",status="429"'), 1);
  assert(!text.includes("t-1"), "a raw path is never a label");
  assertEquals(sample(text, "storectl_rate_limit_decisions_total", 'decision="allowed"'), 1);
  assertEquals(sample(text, "storectl_rate_limit_decisions_total", 'decision="refused"'), 1);
  assertEquals(sample(text, "storectl_tasks_submitted_total", 'kind="demo"'), 1);
  assertEquals((await scrape(new Request("http://metrics/other"))).status, 404);
});

Deno.test("metrics: promtool check metrics accepts the exposition", { ignore: missingTools("promtool") }, async () => {
  await using served = testApp({ env: { METRICS_PORT: "0" } });
  await (await served.app.request("/tasks")).body?.cancel();
  const { text } = await served.service.metrics!.render();
  const child = new Deno.Command(requireTool("promtool"), {
    args: ["check", "metrics"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const out = await child.output();
  const said = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assertEquals(out.code, 0, said);
  assertMatch(text, /# TYPE storectl_http_request_duration_seconds histogram/);
});

Deno.test("no METRICS_PORT, no metrics: nothing is measured", async () => {
  await using served = testApp();
  assertEquals(served.service.metrics, undefined);
});

Deno.test("metrics: tasks running now, streams open by channel, their frames", async () => {
  await using served = testApp({ env: { METRICS_PORT: "0" } });
  const { app, service } = served;
  const scrape = async () => (await service.metrics!.render()).text;
  const submit = async (input: Record<string, unknown>) =>
    (await (await app.request("/tasks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ kind: "demo", input }),
    })).json()).task_id;
  const long = await submit({ steps: 100, delay_ms: 1_000 });
  await until(
    "one demo task running",
    async () => sample(await scrape(), "storectl_tasks_running", 'kind="demo"') === 1,
  );
  await (await app.request(`/tasks/${long}/cancel`, { method: "POST" })).body?.cancel();
  await until("none running", async () => sample(await scrape(), "storectl_tasks_running", 'kind="demo"') === 0);

  const short = await submit({ steps: 2, delay_ms: 0, tokens: ["a", "b"] });
  const stream = await app.request(`/tasks/${short}/stream`);
  assertMatch(await stream.text(), /event: done/);
  let text = "";
  await until("the stream is closed and counted", async () => {
    text = await scrape();
    return sample(text, "storectl_streams_open", 'channel="task"') === 0;
  });
  assert(sample(text, "storectl_stream_frames_total", 'channel="task"')! >= 5, text);
});

Deno.test("metrics: store calls by family with their durations, and the failed ones", async () => {
  const base = createMemoryStore();
  let down = false;
  const store = { ...base, ping: () => down ? Promise.reject(new Error("refused")) : base.ping() };
  await using served = testApp({ env: { METRICS_PORT: "0" }, store });
  const { app, service } = served;
  for (const path of ["/tasks/t-1", "/tasks/t-2"]) await (await app.request(path)).body?.cancel();
  down = true;
  assertEquals((await app.request("/readyz")).status, 503);
  const { text } = await service.metrics!.render();
  assertEquals(sample(text, "storectl_store_call_duration_seconds_count", 'family="tasks.get"'), 2);
  assertEquals(sample(text, "storectl_store_call_errors_total", 'family="ping"'), 1);
  assertEquals(sample(text, "storectl_store_call_errors_total", 'family="tasks.get"'), undefined);
});

Deno.test("metrics: the queue's waiting tasks and the oldest one's age by lane, read from the store when scraped", async () => {
  await using served = testApp({ env: { METRICS_PORT: "0", TASK_CONCURRENCY: "1" } });
  const { app, service } = served;
  const submit = async (input: Record<string, unknown>) =>
    await (await app.request("/tasks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ kind: "demo", input }),
    })).json();
  const holder = await submit({ steps: 0, ask: "hold the only slot" });
  await until(
    "the holder runs",
    async () => (await (await app.request(`/tasks/${holder.task_id}`)).json()).status === "input_required",
  );
  for (let i = 0; i < 2; i++) await submit({ steps: 0 });
  const { text } = await service.metrics!.render();
  assertEquals(sample(text, "storectl_task_queue_waiting", 'lane="tasks"'), 2);
  assertEquals(sample(text, "storectl_task_queue_waiting", 'lane="pipelines"'), 0);
  assert(sample(text, "storectl_task_queue_oldest_age_seconds", 'lane="tasks"')! >= 0);
  assertEquals(sample(text, "storectl_task_queue_oldest_age_seconds", 'lane="pipelines"'), 0);
});

Deno.test("METRICS_TENANT_LABEL: requests and tasks by tenant, the tenants past METRICS_TENANT_CAP as _other", async () => {
  const tokens = testTokens();
  await using served = testApp({
    env: { METRICS_PORT: "0", METRICS_TENANT_LABEL: "true", METRICS_TENANT_CAP: "1" },
    tokens: createTokenSet(parseTokens(tokens.file, "test")),
  });
  const { app, service } = served;
  for (const token of [tokens.admin, tokens.stranger, tokens.admin]) {
    await (await app.request("/tasks/t-1", { headers: { authorization: `Bearer ${token}` } })).body?.cancel();
  }
  const { text } = await service.metrics!.render();
  assertEquals(sample(text, "storectl_tenant_requests_total", 'tenant="acme",code="4xx"'), 2);
  assertEquals(sample(text, "storectl_tenant_requests_total", 'tenant="_other",code="4xx"'), 1);
  assert(!text.includes("globex"), "a tenant past the cap is never a label");
});

Deno.test("metrics: streams resumed with Last-Event-ID, by channel", async () => {
  await using served = testApp({ env: { METRICS_PORT: "0" } });
  const { app, service } = served;
  const made = await (await app.request("/tasks", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ kind: "demo", input: { steps: 0 } }),
  })).json();
  await until("done", async () => (await (await app.request(`/tasks/${made.task_id}`)).json()).status === "done");
  await (await app.request(`/tasks/${made.task_id}/stream`)).text();
  await (await app.request(`/tasks/${made.task_id}/stream`, { headers: { "last-event-id": "1" } })).text();
  const { text } = await service.metrics!.render();
  assertEquals(sample(text, "storectl_stream_resumes_total", 'channel="task"'), 1);
});

Deno.test("metrics: webhook attempts by outcome", async () => {
  await using receiver = startReceiver();
  await using served = testApp({
    env: { METRICS_PORT: "0", WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_HOSTS: "127.0.0.1" },
  });
  const { app, service } = served;
  const json = { "content-type": "application/json" };
  const hook = await app.request("/webhooks", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ url: `${receiver.url}/hook` }),
  });
  assertEquals(hook.status, 201);
  await (await app.request("/tasks", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ kind: "demo", input: { steps: 0 } }),
  })).body?.cancel();
  await until("delivered and counted", async () => {
    const { text } = await service.metrics!.render();
    return sample(text, "storectl_webhook_attempts_total", 'outcome="delivered"') === 1;
  });
  assertEquals(receiver.received.length, 1);
});
