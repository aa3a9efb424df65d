import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import edge from "../server/edge.ts";
import { startRedis } from "../testing/redis_server.ts";
import { missingTools } from "../testing/tools.ts";
import { startUpstashStandIn } from "../testing/upstash_standin.ts";
import { sha256Hex } from "../server/auth/tokens.ts";

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

/** A new instance of the edge entry, whose app is made again on its first request. */
const freshEdge = async (): Promise<typeof edge> =>
  (await import(`../server/edge.ts?fresh=${crypto.randomUUID()}`)).default;

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
  const { default: fresh } = await import(`../server/edge.ts?fresh=${crypto.randomUUID()}`);
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
    const fresh = async () => (await import(`../server/edge.ts?fresh=${crypto.randomUUID()}`)).default;

    const open = await fresh();
    let message = "";
    await open.fetch(new Request("http://edge.test/tasks"), store).catch((e: Error) => message = e.message);
    assertMatch(message, /SERVICE_TOKENS.*ALLOW_ANONYMOUS=true/);

    message = "";
    const bad = await fresh();
    await bad.fetch(new Request("http://edge.test/tasks"), { ...store, SERVICE_TOKENS: "[" })
      .catch((e: Error) => message = e.message);
    assertMatch(message, /^The SERVICE_TOKENS binding is not JSON/);
    assert(!message.includes("SERVICE_TOKENS_FILE"), message); // a binding, not a file

    const token = `edge-${crypto.randomUUID()}`;
    const tokens = JSON.stringify([{ name: "edge", tenant: "acme", scopes: ["tasks:read"], sha256: sha256Hex(token) }]);
    const guarded = await fresh();
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
    const open = await freshEdge();
    const status = async (app: typeof edge, url: string, bindings: Record<string, string>, init?: RequestInit) => {
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

    const pinned = await freshEdge();
    const names = { ...env, ALLOWED_HOSTS: "storectl.acme.example" };
    assertEquals(await status(pinned, "https://storectl.acme.example/health", names), 200);
    assertEquals(await status(pinned, "https://storectl.acme.workers.dev/health", names), 421);

    let message = "";
    await (await freshEdge()).fetch(new Request("https://x.example/health"), {
      ...env,
      ALLOWED_HOSTS: "https://x.example",
    })
      .catch((e: Error) => message = e.message);
    assertMatch(message, /^The ALLOWED_HOSTS binding must list host names.*'https:\/\/x\.example'/);
  },
);
