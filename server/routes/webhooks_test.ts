import { assert, assertEquals, assertMatch } from "../../testing/assert.ts";
import { testApp, type TestServiceOptions } from "../../testing/service.ts";
import { startReceiver } from "../../testing/webhook_receiver.ts";
import { until } from "../../testing/until.ts";

/** The service allowed to deliver to the receiver on loopback, as a test would configure it. */
const LOOPBACK = { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_HOSTS: "127.0.0.1" };

function served(options: TestServiceOptions = {}) {
  const { app, service } = testApp({ ...options, env: { ...LOOPBACK, ...options.env } });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await app.request(path, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, res };
  };
  return { call, service, [Symbol.asyncDispose]: () => service.close() };
}

Deno.test("webhooks: signed deliveries of a tenant's task ends, verified by the official library", async (t) => {
  await using receiver = startReceiver();
  await using api = served();

  const made = await api.call("POST", "/webhooks", { url: `${receiver.url}/all`, events: ["done", "failed"] });
  assertEquals(made.status, 201);
  assertMatch(made.body.secret, /^whsec_/);
  receiver.secret("/all", made.body.secret);
  const listed = await api.call("GET", "/webhooks");
  assertEquals(listed.body.webhooks.map((w: { id: string }) => w.id), [made.body.id]);
  assertEquals(listed.body.webhooks[0].secret, undefined, "the secret is shown once");

  await t.step("a task's end is delivered once, signed, with the task in its body", async () => {
    const task = await api.call("POST", "/tasks", { kind: "demo", input: { steps: 0, tokens: ["hi"] } });
    await until("the delivery arrives", () => receiver.received.length === 1);
    const [got] = receiver.received;
    assert(got.verified, "the standardwebhooks library verifies the signature");
    const body = JSON.parse(got.body);
    assertEquals([body.type, body.data.task_id, body.data.result], ["task.done", task.body.task_id, { answer: "hi" }]);
    await until("it is recorded as delivered", async () => {
      const { body } = await api.call("GET", `/webhooks/${made.body.id}/deliveries`);
      return body.deliveries[0]?.state === "delivered";
    });
    const { body: log } = await api.call("GET", `/webhooks/${made.body.id}/deliveries`);
    assertEquals(log.deliveries[0].id, got.id);
    assertEquals(log.deliveries[0].attempts.map((a: { status: number }) => a.status), [204]);
  });

  await t.step("a 500 is tried again after a backoff, with the same webhook-id; then delivered", async () => {
    receiver.received.length = 0;
    receiver.answer = (_got, count) => count === 1 ? 500 : 204;
    await api.call("POST", "/tasks", { kind: "demo", input: { steps: 0, fail: "on purpose" } });
    await until("the second attempt arrives", () => receiver.received.length === 2, 10_000);
    const [first, second] = receiver.received;
    assertEquals(first.id, second.id);
    assert(first.verified && second.verified);
    assertEquals(JSON.parse(second.body).type, "task.failed");
    assert(second.at - first.at >= 0);
    await until("it is recorded as delivered", async () => {
      const { body } = await api.call("GET", `/webhooks/${made.body.id}/deliveries`);
      return body.deliveries[0]?.state === "delivered";
    });
    const { body: log } = await api.call("GET", `/webhooks/${made.body.id}/deliveries`);
    assertEquals(log.deliveries[0].attempts.map((a: { status: number }) => a.status), [500, 204]);
    receiver.answer = () => 204;
  });

  await t.step("redeliver sends a delivery again, with its webhook-id", async () => {
    receiver.received.length = 0;
    const { body: log } = await api.call("GET", `/webhooks/${made.body.id}/deliveries`);
    const again = await api.call("POST", `/webhooks/${made.body.id}/deliveries/${log.deliveries[0].id}/redeliver`);
    assertEquals(again.status, 202);
    await until("it arrives again", () => receiver.received.length === 1);
    assertEquals(receiver.received[0].id, log.deliveries[0].id);
    const missing = await api.call("POST", `/webhooks/${made.body.id}/deliveries/nope/redeliver`);
    assertEquals(missing.status, 404);
  });

  await t.step("a task's own webhook: its secret in the answer, its question and end delivered", async () => {
    receiver.received.length = 0;
    const task = await api.call("POST", "/tasks", {
      kind: "demo",
      input: { steps: 0, ask: "colour?" },
      webhook: { url: `${receiver.url}/task`, events: ["input_required", "done"] },
    });
    assertEquals(task.status, 201);
    receiver.secret("/task", task.body.webhook.secret);
    await until(
      "the question is delivered",
      () => receiver.received.some((r) => r.headers.host && r.body.includes("colour")),
    );
    const asked = receiver.received.find((r) => JSON.parse(r.body).type === "task.input_required")!;
    assert(asked.verified);
    assertEquals(JSON.parse(asked.body).data.prompt, "colour?");
    await api.call("POST", `/tasks/${task.body.task_id}/input`, { input: "red" });
    await until(
      "the end is delivered",
      () =>
        receiver.received.some((r) =>
          JSON.parse(r.body).data.task_id === task.body.task_id && JSON.parse(r.body).type === "task.done"
        ),
    );
  });

  await t.step("DELETE removes a webhook and its deliveries", async () => {
    assertEquals((await api.call("DELETE", `/webhooks/${made.body.id}`)).status, 204);
    assertEquals((await api.call("GET", `/webhooks/${made.body.id}`)).status, 404);
    assertEquals((await api.call("DELETE", `/webhooks/${made.body.id}`)).status, 404);
  });
});

Deno.test("webhooks: a URL that could reach inside is refused at subscription, naming why", async () => {
  await using api = served({ env: { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_HOSTS: "" } });
  const refused: [url: string, why: RegExp][] = [
    ["http://127.0.0.1:9/", /loopback/],
    ["http://[::1]:9/", /loopback/],
    ["http://10.1.2.3/", /private/],
    ["http://172.16.0.9/", /private/],
    ["http://192.168.1.1/", /private/],
    ["http://169.254.169.254/latest/meta-data/", /metadata|link-local/],
    ["http://100.64.0.1/", /shared|carrier|CGN/i],
    ["http://[fd00::1]/", /private|unique/],
    ["http://[fe80::1]/", /link-local/],
    ["http://0.0.0.0/", /unspecified|this network/i],
    ["http://[::ffff:127.0.0.1]/", /loopback/],
    ["http://2130706433/", /loopback/],
    ["http://localhost:9/", /loopback/],
  ];
  for (const [url, why] of refused) {
    const res = await api.call("POST", "/webhooks", { url });
    assertEquals(res.status, 422, url);
    assertMatch(res.body.errors[0].message, why, url);
    assertMatch(res.body.errors[0].message, /WEBHOOK_ALLOW_HOSTS/, url);
  }
  await using strict = served({ env: { WEBHOOK_ALLOW_HTTP: "false" } });
  const http = await strict.call("POST", "/webhooks", { url: "http://receiver.example/" });
  assertEquals(http.status, 422);
  assertMatch(http.body.errors[0].message, /https/);
  const task = await strict.call("POST", "/tasks", { kind: "demo", webhook: { url: "http://10.0.0.1/" } });
  assertEquals(task.status, 422, "a task with a refused webhook is not made");
  assertEquals(task.body.errors[0].field, "webhook.url");
  assertEquals((await strict.call("GET", "/tasks")).body.total, 0);
});

Deno.test("webhooks off (WEBHOOKS_ENABLED=false): no routes, a task's webhook is refused, no push", async () => {
  await using api = served({ env: { WEBHOOKS_ENABLED: "false" } });
  assertEquals((await api.call("GET", "/webhooks")).status, 404);
  const task = await api.call("POST", "/tasks", { kind: "demo", webhook: { url: "https://receiver.example/" } });
  assertEquals(task.status, 422);
  const card = await api.call("GET", "/.well-known/agent-card.json");
  assertEquals(card.body.capabilities.pushNotifications, false);
});
