import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { createMemoryStore, openStore, StoreUnavailableError } from "../lib/store/mod.ts";
import { type OpenStore, testOnEveryStore } from "../testing/store_backends.ts";
import { startRedis } from "../testing/redis_server.ts";
import { startRedisCluster } from "../testing/redis_cluster.ts";
import { missingTools } from "../testing/tools.ts";
import { startUpstashStandIn } from "../testing/upstash_standin.ts";
import { sleep } from "../lib/time/mod.ts";

/** The behaviour every store backend must share. */
async function contract(t: Deno.TestContext, open: OpenStore) {
  let n = 0;
  const fresh = async () => await open(`contract-${crypto.randomUUID()}-${n++}:`);

  await t.step("allows `limit` requests, then rejects without recording", async () => {
    const store = await fresh();
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await store.hitSlidingWindow("k", 3, 600));
    assertEquals(decisions.map((d) => [d.allowed, d.count]), [[true, 1], [true, 2], [true, 3], [false, 3]]);
    assert(decisions[3].resetMs > 0 && decisions[3].resetMs <= 600, `resetMs ${decisions[3].resetMs}`);
    await sleep(650);
    const after = await store.hitSlidingWindow("k", 3, 600);
    assertEquals([after.allowed, after.count], [true, 1], "rejected requests were not recorded");
    await store.close();
  });

  await t.step("entries leave the window one by one", async () => {
    const store = await fresh();
    await store.hitSlidingWindow("k", 2, 700);
    await sleep(350);
    await store.hitSlidingWindow("k", 2, 700);
    assertEquals((await store.hitSlidingWindow("k", 2, 700)).allowed, false);
    await sleep(400); // the first entry has left, the second has not
    assertEquals((await store.hitSlidingWindow("k", 2, 700)).allowed, true);
    assertEquals((await store.hitSlidingWindow("k", 2, 700)).allowed, false);
    await store.close();
  });

  await t.step("keys are independent", async () => {
    const store = await fresh();
    assertEquals((await store.hitSlidingWindow("a", 1, 10_000)).allowed, true);
    assertEquals((await store.hitSlidingWindow("b", 1, 10_000)).allowed, true);
    assertEquals((await store.hitSlidingWindow("a", 1, 10_000)).allowed, false);
    await store.close();
  });

  await t.step("200 concurrent requests for one key: exactly `limit` allowed", async () => {
    const store = await fresh();
    const results = await Promise.all(Array.from({ length: 200 }, () => store.hitSlidingWindow("k", 10, 30_000)));
    assertEquals(results.filter((r) => r.allowed).length, 10);
    await store.close();
  });

  await t.step("ping answers", async () => {
    const store = await fresh();
    await store.ping();
    await store.close();
  });
}

testOnEveryStore("store contract", contract);

Deno.test("memory store: the rule-6 scenario with an injected clock", async () => {
  const clock = { ms: 0 };
  const store = createMemoryStore({ now: () => clock.ms });
  const answers: boolean[] = [];
  for (let i = 0; i < 20; i++, clock.ms += 500) answers.push((await store.hitSlidingWindow("k", 10, 30_000)).allowed);
  assertEquals(answers, [...Array(10).fill(true), ...Array(10).fill(false)]);
  clock.ms = 30_000; // the first request (t=0) has left the window
  assertEquals((await store.hitSlidingWindow("k", 10, 30_000)).allowed, true);
  assertEquals((await store.hitSlidingWindow("k", 10, 30_000)).allowed, false);
  clock.ms = 30_500; // the second (t=500) leaves too
  assertEquals((await store.hitSlidingWindow("k", 10, 30_000)).allowed, true);
});

Deno.test("openStore() rejects an unknown STORE_URL and reports an unreachable Redis", async () => {
  let message = "";
  await openStore({ url: "postgres://x" }).catch((e) => message = e.message);
  assertEquals(
    message,
    "STORE_URL 'postgres://x' is not supported: use memory:, redis://host:port, rediss://host:port or redis-cluster://host:port,host:port,…",
  );
  await openStore({ url: "redis-cluster://:secret@127.0.0.1:1,127.0.0.1:2" }).catch((e) => message = e.message);
  assertEquals(
    message,
    "Cannot connect to Redis Cluster at 127.0.0.1:1,127.0.0.1:2: no seed node answered; start the cluster there or fix STORE_URL",
  );
  await openStore({ url: "redis://user:secret@127.0.0.1:1" }).catch((e) => message = e.message);
  assertEquals(
    message,
    "Cannot connect to Redis at redis://user:***@127.0.0.1:1: connection refused; start Redis there or fix STORE_URL",
  );
});

Deno.test("Redis store: calls while Redis is down reject with StoreUnavailableError naming host and port", {
  ignore: missingTools("redis-server"),
}, async () => {
  await using redis = await startRedis({ password: "s3cret-pass" });
  const store = await openStore({ url: redis.url });
  try {
    await redis.stop();
    for (const call of [() => store.ping(), () => store.hitSlidingWindow("k", 1, 1000)]) {
      const error = await call().then(() => undefined, (e: Error) => e);
      assert(error instanceof StoreUnavailableError, String(error));
      assertMatch(
        error.message,
        new RegExp(`^Redis at 127\\.0\\.0\\.1:${redis.port} is not reachable \\(.+\\); retrying$`),
      );
      assert(!/s3cret|enableOfflineQueue/.test(error.message), error.message);
      assert(error.cause instanceof Error, "ioredis' own error is kept as the cause");
    }
  } finally {
    await store.close();
  }
});

/** How long `call` took to reject, and with what; a call still pending after 3 s fails the test. */
async function failure(call: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("the call was still pending after 3000 ms")), 3_000);
  });
  try {
    const error = await Promise.race([call().then(() => undefined, (e) => e), guard]);
    return { error, ms: performance.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

Deno.test(
  "Redis store: a stalled redis-server (SIGSTOP) fails each call within the deadline, and answers after SIGCONT",
  {
    ignore: missingTools("redis-server"),
  },
  async () => {
    await using redis = await startRedis();
    const store = await openStore({ url: redis.url, timeoutMs: 300 });
    try {
      await store.ping();
      redis.pause();
      const hit = () => store.hitSlidingWindow("k", 100, 30_000);
      for (const [i, call] of [() => store.ping(), ...Array<typeof hit>(10).fill(hit)].entries()) {
        const { error, ms } = await failure(call);
        assert(error instanceof StoreUnavailableError, String(error));
        assertEquals(error.message, `Redis at 127.0.0.1:${redis.port} did not answer within 300 ms; reconnecting`);
        // The first waits out the deadline; the connection is then reopened and the rest fail at once.
        assert(ms < 1_000 && (i > 0 || ms >= 250), `call ${i} rejected after ${ms} ms`);
      }
      redis.resume();
      for (let i = 0; i < 50 && await store.ping().then(() => false, () => true); i++) await sleep(100);
      const after = await hit();
      assert(after.count <= 2, `${after.count - 1} of the 10 rejected hits ran when Redis resumed`);
    } finally {
      redis.resume();
      await store.close();
    }
  },
);

Deno.test(
  "Upstash store: a stalled REST endpoint fails each call within the deadline (the fetch is aborted), then recovers",
  {
    ignore: missingTools("redis-server"),
  },
  async () => {
    await using redis = await startRedis();
    await using upstash = await startUpstashStandIn(redis.url);
    const store = await openStore({ upstash: { url: upstash.url, token: upstash.token }, timeoutMs: 300 });
    try {
      await store.ping();
      upstash.delay(5_000);
      for (const call of [() => store.ping(), () => store.hitSlidingWindow("k", 10, 30_000)]) {
        const { error, ms } = await failure(call);
        assert(error instanceof StoreUnavailableError, String(error));
        assertEquals(error.message, `Upstash at ${new URL(upstash.url).host} did not answer within 300 ms`);
        assert(ms >= 250 && ms < 1_000, `rejected after ${ms} ms`);
      }
      upstash.delay(0);
      await store.ping();
      assertEquals((await store.hitSlidingWindow("other", 10, 30_000)).allowed, true);
    } finally {
      await store.close();
    }
  },
);

Deno.test("Redis store: the password comes from `password` (STORE_PASSWORD) when the URL has none", {
  ignore: missingTools("redis-server"),
}, async () => {
  await using redis = await startRedis({ password: "from-env" });
  const bare = `redis://127.0.0.1:${redis.port}`;
  const store = await openStore({ url: bare, password: "from-env" });
  await store.ping();
  await store.close();
  let message = "";
  await openStore({ url: bare }).then((s) => s.close(), (e) => message = e.message);
  assertMatch(message, /Cannot connect to Redis/);
});

Deno.test("Redis Cluster store: the password comes from the URL or from `password` (STORE_PASSWORD)", {
  ignore: missingTools("redis-server", "redis-cli"),
}, async () => {
  await using cluster = await startRedisCluster({ password: "cluster-pw" });
  const fromEnv = await openStore({ url: cluster.url, password: "cluster-pw" });
  await fromEnv.ping();
  assertEquals((await fromEnv.hitSlidingWindow("k", 1, 10_000)).allowed, true);
  await fromEnv.close();
  const inUrl = await openStore({ url: cluster.url.replace("://", "://:cluster-pw@"), password: "wrong" });
  assertEquals((await inUrl.hitSlidingWindow("k", 1, 10_000)).allowed, false, "the same cluster, the URL's password");
  await inUrl.close();
  let message = "";
  await openStore({ url: cluster.url }).then((s) => s.close(), (e) => message = e.message);
  assertMatch(
    message,
    /^Cannot connect to Redis Cluster at 127\.0\.0\.1:\d+,.*NOAUTH.*; set its password in STORE_URL or STORE_PASSWORD$/,
  );
  assert(!message.includes("cluster-pw"));
});
