import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { openStore, type Store } from "../lib/store/mod.ts";
import { testApp } from "../testing/service.ts";
import { startRedis } from "../testing/redis_server.ts";
import { missingTools } from "../testing/tools.ts";
import { startUpstashStandIn } from "../testing/upstash_standin.ts";
import { DENO_SERVER, startServer } from "../testing/server_process.ts";
import { storeOutageScenario } from "./store_outage_scenario.ts";
import { sleep } from "../lib/time/mod.ts";

const AUTH = { authorization: `Basic ${btoa("alice:secret")}` };
const PATH = "/api/RateLimited/sliding";

/** The rule-6 shape: 20 requests `gapMs` apart, then one more once the first left the window. */
async function ruleSix(store: Store, windowMs: number, gapMs: number) {
  const { app } = testApp({ store, configure: (c) => ({ ...c, rateLimit: { routes: [PATH], limit: 10, windowMs } }) });
  const started = performance.now();
  const statuses: number[] = [];
  for (let i = 0; i < 20; i++) {
    await sleep(Math.max(0, started + i * gapMs - performance.now()));
    statuses.push((await app.request(PATH, { headers: AUTH })).status);
  }
  assertEquals(statuses, [...Array(10).fill(200), ...Array(10).fill(429)]);
  await sleep(Math.max(0, started + windowMs + gapMs / 2 - performance.now())); // only the first has left
  assertEquals((await app.request(PATH, { headers: AUTH })).status, 200, "the first entry has left the window");
  assertEquals((await app.request(PATH, { headers: AUTH })).status, 429);
}

Deno.test("rule 6 in real time against Redis: 20 requests 0.5 s apart, then 200 again after 30 s", {
  ignore: missingTools("redis-server"),
}, async () => {
  await using redis = await startRedis();
  const store = await openStore({ url: redis.url, prefix: "rule6:" });
  try {
    await ruleSix(store, 30_000, 500);
  } finally {
    await store.close();
  }
});

Deno.test("rule 6, time-scaled, on Redis and on Upstash REST", { ignore: missingTools("redis-server") }, async () => {
  await using redis = await startRedis();
  await using upstash = await startUpstashStandIn(redis.url);
  for (
    const store of [await openStore({ url: redis.url, prefix: "scaled:" }), await openStore({ upstash, prefix: "up:" })]
  ) {
    try {
      await ruleSix(store, 2_000, 100);
    } finally {
      await store.close();
    }
  }
});

Deno.test("Redis: 200 concurrent requests for one identity give exactly 10 × 200", {
  ignore: missingTools("redis-server"),
}, async () => {
  await using redis = await startRedis();
  const store = await openStore({ url: redis.url });
  const { app } = testApp({ store });
  const statuses = await Promise.all(
    Array.from({ length: 200 }, async () => (await app.request(PATH, { headers: AUTH })).status),
  );
  assertEquals(statuses.filter((s) => s === 200).length, 10);
  await store.close();
});

Deno.test("Redis killed mid-run: 503s while it is down, then 200 again without a restart", {
  ignore: missingTools("redis-server"),
}, async () => {
  await using redis = await startRedis();
  const store = await openStore({ url: redis.url });
  const { app } = testApp({ store });
  const status = async (who: string) =>
    (await app.request(PATH, { headers: { authorization: `Basic ${btoa(`${who}:x`)}` } })).status;
  assertEquals(await status("a"), 200);
  await redis.stop();
  assertEquals([await status("b"), await status("c")], [503, 503]);
  assertEquals((await app.request("/health")).status, 503);
  await redis.start();
  let recovered = 0;
  for (let i = 0; i < 50 && recovered !== 200; i++) {
    await sleep(100);
    recovered = await status(`d${i}`);
  }
  assertEquals(recovered, 200);
  await store.close();
});

Deno.test("two server processes sharing one redis-server allow exactly 10 × 200 in total", {
  ignore: missingTools("redis-server"),
}, async () => {
  await using redis = await startRedis();
  await using first = await startServer(DENO_SERVER, { STORE_URL: redis.url });
  await using second = await startServer(DENO_SERVER, { STORE_URL: redis.url });
  const urls = [first.url, second.url];
  const statuses = await Promise.all(
    Array.from({ length: 40 }, async (_, i) => {
      const res = await fetch(`${urls[i % 2]}${PATH}`, { headers: AUTH });
      await res.body?.cancel();
      return res.status;
    }),
  );
  assertEquals(statuses.filter((s) => s === 200).length, 10);
  assertEquals(statuses.filter((s) => s === 429).length, 30);
});

Deno.test("Redis down: the 503 detail, /health cause and log line name Redis's address, never ioredis' words", {
  ignore: missingTools("redis-server"),
}, async () => {
  await using redis = await startRedis({ password: "s3cret-pass" });
  const store = await openStore({ url: redis.url });
  const lines: string[] = [];
  const { app } = testApp({ store, log: (line) => lines.push(line) });
  await redis.stop();
  const message = `Redis at 127.0.0.1:${redis.port} is not reachable (connection refused); retrying`;
  let health: { cause?: string } = {};
  for (let i = 0; i < 50 && health.cause !== message; i++) { // until ioredis has tried to reconnect once
    await sleep(100);
    health = await (await app.request("/health")).json();
  }
  assertEquals(health.cause, message);
  const res = await app.request(PATH, { headers: AUTH });
  assertEquals(res.status, 503);
  const detail: string = (await res.json()).detail;
  assert(detail.includes(message), detail);
  // One line for the whole outage: its first failure, which may precede the first reconnect attempt.
  assertEquals(lines.length, 1, lines.join("\n"));
  assertMatch(lines[0], new RegExp(`: Redis at 127\\.0\\.0\\.1:${redis.port} is not reachable \\(.+\\); retrying$`));
  for (const text of [...lines, detail, health.cause]) {
    assert(!/enableOfflineQueue|Stream isn't writeable|s3cret-pass/.test(text), text);
  }
  await store.close();
});

Deno.test("Redis stalled (SIGSTOP): the route and /health answer 503 within STORE_TIMEOUT_MS, 200 after SIGCONT", {
  ignore: missingTools("redis-server"),
}, async () => {
  await using redis = await startRedis();
  const store = await openStore({ url: redis.url, timeoutMs: 300 });
  const { app } = testApp({ store });
  const timed = async (path: string, headers: HeadersInit = {}) => {
    const started = performance.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const guard = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${path} was still unanswered after 3000 ms`)), 3_000);
    });
    try {
      const res = await Promise.race([app.request(path, { headers }), guard]);
      const body = await res.json().catch(() => undefined);
      return { status: res.status, body, ms: performance.now() - started };
    } finally {
      clearTimeout(timer);
    }
  };
  try {
    assertEquals((await timed(PATH, AUTH)).status, 200);
    redis.pause();
    const [route, health] = await Promise.all([timed(PATH, AUTH), timed("/health")]);
    assertEquals([route.status, health.status], [503, 503]);
    assert(route.ms < 1_000 && health.ms < 1_000, `took ${route.ms} and ${health.ms} ms`);
    const stalled = `Redis at 127.0.0.1:${redis.port} did not answer within 300 ms; reconnecting`;
    assertEquals(route.body.detail, `The rate limit cannot be checked: ${stalled}. Try again shortly`);
    assertEquals(health.body, { status: "unhealthy", store: "redis", cause: stalled });
    redis.resume();
    let healthy = 0;
    for (let i = 0; i < 50 && healthy !== 200; i++) { // until the connection reopened after the timeout is ready
      await sleep(100);
      healthy = (await timed("/health")).status;
    }
    assertEquals([healthy, (await timed(PATH, AUTH)).status], [200, 200]);
  } finally {
    redis.resume();
    await store.close();
  }
});

Deno.test(
  "server process on Redis: stalled, then killed: 503 within STORE_TIMEOUT_MS, recovery, two log lines per outage",
  {
    ignore: missingTools("redis-server"),
  },
  () => storeOutageScenario(DENO_SERVER),
);
