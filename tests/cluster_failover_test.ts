/**
 * A Redis Cluster master fails over while a server process is under
 * load — `CLUSTER FAILOVER` on its replica, and a `kill -9` of the master. The rate-limited route
 * never answers 200 past the limit, every submitted task finishes once, a task stream open
 * across the failover sees every event once and in order, and the process goes on without a
 * restart. Several processes and resumed streams: `cluster_processes_test.ts`; retry bounds:
 * `cluster_retry_test.ts`.
 *
 * @module
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { type RedisCluster, startRedisCluster } from "../testing/redis_cluster.ts";
import { DENO_SERVER, startServer } from "../testing/server_process.ts";
import { sseEvents } from "../testing/sse.ts";
import { missingTools } from "../testing/tools.ts";
import { until } from "../testing/until.ts";
import { sleep } from "../lib/time/mod.ts";

const AUTH = { authorization: `Basic ${btoa("alice:secret")}` };
const PATH = "/api/RateLimited/sliding";

async function submit(url: string, input: Record<string, unknown>): Promise<Response> {
  return await fetch(`${url}/tasks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ kind: "demo", input }),
  });
}

/**
 * Load on one server process over `cluster` while `disrupt` fails the rate-limit key's master
 * over, then the checks of item 3.
 */
async function failoverUnderLoad(
  disrupt: (cluster: RedisCluster, key: string) => Promise<{ from: number; to: number }>,
) {
  await using cluster = await startRedisCluster();
  const prefix = `failover-${crypto.randomUUID()}:`;
  await using server = await startServer(DENO_SERVER, {
    STORE_URL: cluster.url,
    STORE_KEY_PREFIX: prefix,
    RATE_LIMIT_MAX: "10",
    RATE_LIMIT_WINDOW_SECONDS: "600", // longer than the test: every 200 counts against one window
  });
  // A long task streamed across the failover.
  const long = await submit(server.url, { steps: 150, delay_ms: 25, tokens: ["a", "b"] });
  assertEquals(long.status, 201);
  const longId = (await long.json()).task_id;
  const stream = sseEvents((await fetch(`${server.url}/tasks/${longId}/stream`)).body!);
  stream.catch(() => {}); // awaited below
  let stop = false;
  const statuses = new Map<number, number>();
  const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
  const limited = (async () => {
    while (!stop) {
      const res = await fetch(`${server.url}${PATH}`, { headers: AUTH });
      await res.body?.cancel();
      count(res.status);
      await sleep(5);
    }
  })();
  const submitted: string[] = [];
  const refused: number[] = [];
  const submitting = (async () => {
    while (!stop) {
      const res = await submit(server.url, { steps: 2, delay_ms: 10, children: 1 });
      if (res.status === 201) submitted.push((await res.json()).task_id);
      else {
        refused.push(res.status);
        await res.body?.cancel();
      }
      await sleep(20);
    }
  })();
  try {
    await until("10 tasks submitted before the failover", () => submitted.length >= 10);
    // The master that holds the rate limit's key: the failover lands on the hottest key.
    const { from, to } = await disrupt(cluster, `${prefix}${PATH}:alice`);
    const after = submitted.length;
    await until("10 more tasks submitted after the failover", () => submitted.length >= after + 10);
    console.log(`failed over ${from} → ${to}; ${submitted.length} tasks, refused ${refused.length} (${refused})`);
  } finally {
    stop = true;
    await Promise.all([limited, submitting]);
  }
  console.log(`rate-limited route: ${JSON.stringify(Object.fromEntries(statuses))}`);
  assert((statuses.get(200) ?? 0) <= 10, `${statuses.get(200)} answers 200 with a limit of 10`);
  assertEquals([...statuses.keys()].filter((s) => ![200, 429, 503].includes(s)), [], "only 200, 429 or 503");
  assert(refused.every((s) => s === 503), `submits refused with ${refused}`);
  // Every task (and its child) finishes once, in this process that was never restarted.
  const updates = new Map<string, number>();
  for (const id of submitted) {
    let task: { status: string; updates?: unknown[] } = { status: "" };
    await until(`task ${id} final`, async () => {
      const res = await fetch(`${server.url}/tasks/${id}`);
      task = res.ok ? await res.json() : { status: `HTTP ${res.status}` };
      return ["done", "failed", "cancelled"].includes(task.status);
    });
    assertEquals(task.status, "done", `task ${id}`);
    updates.set(id, task.updates?.length ?? 0);
    const children = await (await fetch(`${server.url}/tasks/${id}/children`)).json();
    assertEquals(children.children.map((c: { status: string }) => c.status), ["done"], `children of ${id}`);
  }
  // A task run twice would record its updates twice: every task has as many as the others.
  assertEquals(new Set(updates.values()).size, 1, `updates per task: ${[...updates.values()]}`);
  // The stream open across the failover: every event once, in order, to the end.
  const frames = await stream;
  assertEquals(frames.at(-1)?.event, "done");
  assertEquals(frames.map((f) => Number(f.id)), frames.map((_, i) => i + 1), "no gap, no duplicate");
  assertEquals((await fetch(`${server.url}/health`)).status, 200);
}

Deno.test(
  "Redis Cluster: CLUSTER FAILOVER under load — never 200 past the limit, every task once, streams whole, no restart",
  { ignore: missingTools("redis-server", "redis-cli") },
  () => failoverUnderLoad((cluster, key) => cluster.failover(key)),
);

Deno.test(
  "Redis Cluster: kill -9 of a master under load — never 200 past the limit, every task once, streams whole, no restart",
  { ignore: missingTools("redis-server", "redis-cli") },
  () => failoverUnderLoad((cluster, key) => cluster.killMaster(key)),
);
