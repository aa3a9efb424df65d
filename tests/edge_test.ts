import { assertEquals, assertMatch } from "./assert.ts";
import edge from "../server/edge.ts";
import { startRedis } from "./redis_server.ts";
import { missingTools } from "./tools.ts";
import { startUpstashStandIn } from "./upstash_standin.ts";

Deno.test(
  "edge entry: fetch() serves the app on the Upstash REST store",
  { ignore: missingTools("redis-server") },
  async () => {
    await using redis = await startRedis();
    await using upstash = await startUpstashStandIn(redis.url);
    const env = { UPSTASH_REDIS_REST_URL: upstash.url, UPSTASH_REDIS_REST_TOKEN: upstash.token };
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
