import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import edge, { createEdge, type EdgeEntry } from "../server/edge.ts";
import { startRedis } from "../testing/redis_server.ts";
import { missingTools } from "../testing/tools.ts";
import { startUpstashStandIn } from "../testing/upstash_standin.ts";
import { sha256Hex } from "../server/auth/tokens.ts";
import { until } from "../testing/until.ts";
import { a2aClient, message, pushConfigTo, TaskState } from "../testing/a2a_client.ts";

/** A redis-server behind the Upstash stand-in, and the bindings that name it; both stopped on dispose. */
async function upstashStore() {
  const redis = await startRedis();
  const upstash = await startUpstashStandIn(redis.url);
  return {
    bindings: { UPSTASH_REDIS_REST_URL: upstash.url, UPSTASH_REDIS_REST_TOKEN: upstash.token },
    [Symbol.asyncDispose]: async () => {
      await upstash[Symbol.asyncDispose]();
      await redis[Symbol.asyncDispose]();
    },
  };
}

/** A new edge entry, closed with `await using`. */
const edgeEntry = () => {
  const entry = createEdge();
  return Object.assign(entry, { [Symbol.asyncDispose]: () => entry.close() });
};

Deno.test(
  "edge entry: fetch() serves the app on the Upstash REST store",
  { ignore: missingTools("redis-server") },
  async () => {
    await using store = await upstashStore();
    const env = { ...store.bindings, ALLOW_ANONYMOUS: "true" };
    const health = await edge.fetch(new Request("http://edge.test/health"), env);
    assertEquals(await health.json(), { status: "healthy", store: "upstash" });
    const auth = { authorization: `Basic ${btoa("edge-user:x")}` };
    const statuses = [];
    for (let i = 0; i < 11; i++) {
      statuses.push(
        (await edge.fetch(new Request("http://edge.test/api/RateLimited/sliding", { headers: auth }), env)).status,
      );
    }
    assertEquals(statuses, [...Array(10).fill(200), 429]);
  },
);

Deno.test("edge entry: missing bindings are reported by name", async () => {
  await using fresh = edgeEntry();
  let message = "";
  await fresh.fetch(new Request("http://edge.test/health"), {}).catch((e: Error) => message = e.message);
  assertMatch(message, /UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN/);
});

Deno.test(
  "edge entry: with a SERVICE_TOKENS binding the task routes need a token; with neither it nor ALLOW_ANONYMOUS it refuses, saying why",
  { ignore: missingTools("redis-server") },
  async () => {
    await using redis = await startRedis();
    await using upstash = await startUpstashStandIn(redis.url);
    const store = { UPSTASH_REDIS_REST_URL: upstash.url, UPSTASH_REDIS_REST_TOKEN: upstash.token };

    await using open = edgeEntry();
    let message = "";
    await open.fetch(new Request("http://edge.test/tasks"), store).catch((e: Error) => message = e.message);
    assertMatch(message, /SERVICE_TOKENS.*ALLOW_ANONYMOUS=true/);

    message = "";
    await using bad = edgeEntry();
    await bad.fetch(new Request("http://edge.test/tasks"), { ...store, SERVICE_TOKENS: "[" })
      .catch((e: Error) => message = e.message);
    assertMatch(message, /^The SERVICE_TOKENS binding is not JSON/);
    assert(!message.includes("SERVICE_TOKENS_FILE"), message); // a binding, not a file

    const token = `edge-${crypto.randomUUID()}`;
    const tokens = JSON.stringify([{ name: "edge", tenant: "acme", scopes: ["tasks:read"], sha256: sha256Hex(token) }]);
    await using guarded = edgeEntry();
    const env = { ...store, SERVICE_TOKENS: tokens };
    assertEquals((await guarded.fetch(new Request("http://edge.test/tasks"), env)).status, 401);
    const listed = await guarded.fetch(
      new Request("http://edge.test/tasks", { headers: { authorization: `Bearer ${token}` } }),
      env,
    );
    assertEquals([listed.status, (await listed.json()).tasks], [200, []]);
  },
);

Deno.test(
  "edge entry: it answers under any name (its platform's), unless an ALLOWED_HOSTS binding pins them; cross-site writes are refused",
  { ignore: missingTools("redis-server") },
  async () => {
    await using store = await upstashStore();
    const env = { ...store.bindings, ALLOW_ANONYMOUS: "true" };
    await using open = edgeEntry();
    const status = async (app: EdgeEntry, url: string, bindings: Record<string, string>, init?: RequestInit) => {
      const res = await app.fetch(new Request(url, init), bindings);
      await res.body?.cancel();
      return res.status;
    };
    assertEquals(await status(open, "https://storectl.acme.workers.dev/health", env), 200);
    const post = {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://evil.example", "sec-fetch-site": "cross-site" },
      body: JSON.stringify({ kind: "demo", input: { steps: 0 } }),
    };
    assertEquals(await status(open, "https://storectl.acme.workers.dev/tasks", env, post), 403);

    await using pinned = edgeEntry();
    const names = { ...env, ALLOWED_HOSTS: "storectl.acme.example" };
    assertEquals(await status(pinned, "https://storectl.acme.example/health", names), 200);
    assertEquals(await status(pinned, "https://storectl.acme.workers.dev/health", names), 421);

    let message = "";
    await using refused = edgeEntry();
    await refused.fetch(new Request("https://x.example/health"), {
      ...env,
      ALLOWED_HOSTS: "https://x.example",
    })
      .catch((e: Error) => message = e.message);
    assertMatch(message, /^Invalid bindings:\n {2}- ALLOWED_HOSTS must list host names.*'https:\/\/x\.example'/);
  },
);

Deno.test(
  "edge entry: the TASK_* and TENANT_* bindings apply, and finished tasks go after TASK_RETENTION_SECONDS",
  { ignore: missingTools("redis-server") },
  async () => {
    await using store = await upstashStore();
    const env = { ...store.bindings, ALLOW_ANONYMOUS: "true", TENANT_MAX_LIVE_TASKS: "1", TASK_RETENTION_SECONDS: "1" };
    await using app = edgeEntry();
    const post = (input: Record<string, unknown>) =>
      app.fetch(
        new Request("http://edge.test/tasks", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ kind: "demo", input }),
        }),
        env,
      );
    const first = await post({ steps: 0 });
    assertEquals(first.status, 201);
    const { task_id } = await first.json();
    const get = async (path: string) => await (await app.fetch(new Request(`http://edge.test${path}`), env)).json();
    await until("the task done", async () => (await get(`/tasks/${task_id}`)).status === "done");
    const waiting = await post({ steps: 0, ask: "?" });
    assertEquals(waiting.status, 201);
    const over = await post({ steps: 0, ask: "?" });
    assertEquals(over.status, 429, "TENANT_MAX_LIVE_TASKS=1");
    await over.body?.cancel();
    await until("the finished task retired", async () => (await get("/tasks")).total === 1, 10_000);
  },
);

Deno.test(
  "edge entry: A2A with the official client; no webhooks, so no push notifications",
  { ignore: missingTools("redis-server") },
  async () => {
    await using store = await upstashStore();
    await using entry = edgeEntry();
    const env = { ...store.bindings, ALLOW_ANONYMOUS: "true" };
    const server = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen() {} },
      (request) => entry.fetch(request, env),
    );
    try {
      const url = `http://127.0.0.1:${server.addr.port}`;
      const client = await a2aClient(url, "JSONRPC");
      const reply = await client.sendMessage(
        { message: message({ text: "from the edge" }, { skill: "demo" }) } as never,
      );
      assert("status" in reply);
      assertEquals(reply.status!.state, TaskState.TASK_STATE_COMPLETED);
      const card = await (await fetch(`${url}/.well-known/agent-card.json`)).json();
      assertEquals(card.capabilities.pushNotifications, false);
      // The client refuses by the card; the agent refuses the call itself too.
      const push = await (async () =>
        await client.createTaskPushNotificationConfig(pushConfigTo(reply.id, "https://receiver.example/")))().catch((
          error: Error,
        ) =>
          error
        );
      assertEquals((push as Error).name, "PushNotificationNotSupportedError");
      const raw = await (await fetch(`${url}/a2a/jsonrpc`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "CreateTaskPushNotificationConfig",
          params: { taskId: reply.id, url: "https://receiver.example/" },
        }),
      })).json();
      assertEquals(raw.error.code, -32003);
      const hooks = await fetch(`${url}/webhooks`);
      await hooks.body?.cancel();
      assertEquals(hooks.status, 404);
    } finally {
      await server.shutdown();
    }
  },
);
