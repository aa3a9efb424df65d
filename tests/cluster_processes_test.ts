/**
 * Two server processes — Deno and the Node bundle — on one
 * Redis Cluster, under load, while the rate limit's master is failed over (`CLUSTER FAILOVER`)
 * and then another master is killed (`kill -9`). SSE subscribers hang up at random and resume
 * with `Last-Event-ID` on the other process, and must see every event of their task exactly
 * once, in order; the rate-limited route never answers 200 past the limit across both
 * processes; every task finishes once; both processes recover without a restart.
 *
 * @module
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { type RedisCluster, startRedisCluster } from "../testing/redis_cluster.ts";
import { DENO_SERVER, startServer } from "../testing/server_process.ts";
import { type SseFrame, sseFrames } from "../testing/sse.ts";
import { missingTools, requireTool } from "../testing/tools.ts";
import { until } from "../testing/until.ts";
import { bundleAll } from "../tools/bundle.ts";
import { sleep } from "../lib/time/mod.ts";

const AUTH = { authorization: `Basic ${btoa("alice:secret")}` };
const PATH = "/api/RateLimited/sliding";
const LIMIT = 10;

async function submit(url: string, input: Record<string, unknown>): Promise<Response> {
  return await fetch(`${url}/tasks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ kind: "demo", input }),
  });
}

/**
 * Follows task `id` to its end, hanging up after a random few events (and whenever the server
 * cuts the stream or refuses it) and resuming with `Last-Event-ID` on the next process.
 */
async function follow(urls: string[], id: string): Promise<{ frames: SseFrame[]; connections: number }> {
  const frames: SseFrame[] = [];
  let connections = 0;
  const deadline = Date.now() + 45_000;
  while (frames.at(-1)?.event !== "done") {
    if (Date.now() > deadline) throw new Error(`stream of ${id}: no done event after ${connections} connections`);
    const url = urls[connections++ % urls.length];
    const last = frames.at(-1)?.id;
    const res = await fetch(`${url}/tasks/${id}/stream`, { headers: last ? { "last-event-id": last } : {} })
      .catch(() => undefined);
    if (!res?.ok) {
      await res?.body?.cancel();
      await sleep(50); // the store is failing over: try again shortly
      continue;
    }
    const hangUpAfter = 3 + Math.floor(Math.random() * 15);
    let read = 0;
    try {
      for await (const frame of sseFrames(res.body!)) {
        if (frame.event === undefined) continue;
        frames.push(frame);
        if (frame.event === "done" || ++read >= hangUpAfter) break;
      }
    } catch { /* the server cut the stream: resume */ }
  }
  return { frames, connections };
}

Deno.test(
  "Redis Cluster, Deno and Node server processes: a failover and a kill -9 under load — resumed streams whole, never 200 past the limit, every task once",
  { ignore: missingTools("node", "redis-server", "redis-cli") },
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "cluster-processes-" });
    try {
      await bundleAll(dir);
      await using cluster = await startRedisCluster();
      const prefix = `processes-${crypto.randomUUID()}:`;
      const env = {
        STORE_URL: cluster.url,
        STORE_KEY_PREFIX: prefix,
        RATE_LIMIT_MAX: String(LIMIT),
        RATE_LIMIT_WINDOW_SECONDS: "600", // longer than the test: every 200 counts against one window
      };
      const options = { captureStderr: true };
      await using deno = await startServer(DENO_SERVER, env, options);
      await using node = await startServer([requireTool("node"), `${dir}/server.mjs`], env, options);
      const urls = [deno.url, node.url];
      try {
        await underLoad(cluster, prefix, urls);
      } catch (error) {
        // A refused connection means a server ended: say which, how, and what it wrote last.
        const servers = [["Deno", deno], ["Node", node]] as const;
        const report = servers.map(([name, server]) => {
          const code = server.exitCode();
          return `${name} server ${server.url}: ${code === undefined ? "running" : `exited with ${code}`}; ` +
            `its stderr ends with:\n${server.stderrSoFar().slice(-2_000)}`;
        });
        const { message, cause } = error as Error;
        const why = cause instanceof Error ? ` (${cause.message})` : "";
        throw new Error(`${message}${why}\n${report.join("\n")}`, { cause: error });
      }
    } finally {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
);

async function underLoad(cluster: RedisCluster, prefix: string, urls: string[]): Promise<void> {
  // Long tasks, each followed by a subscriber that keeps hanging up and resuming elsewhere.
  const longIds: string[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await submit(urls[i % 2], { steps: 200, delay_ms: 40, tokens: ["a", "b"] });
    assertEquals(res.status, 201);
    longIds.push((await res.json()).task_id);
  }
  const followers = longIds.map((id, i) => follow(i % 2 ? urls : [...urls].reverse(), id));
  let following = followers.length;
  followers.forEach((f) => f.then(() => following--, () => {})); // awaited below

  let stop = false;
  let broken: Error | undefined;
  /** Runs `loop` until `stop`; a request that fails (a server gone) stops it and fails the test. */
  const background = (loop: (i: number) => Promise<void>) =>
    (async () => {
      for (let i = 0; !stop; i++) await loop(i);
    })().catch((error) => void (broken ??= error));
  const statuses = new Map<number, number>();
  const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
  const limited = background(async (i) => {
    const res = await fetch(`${urls[i % 2]}${PATH}`, { headers: AUTH });
    await res.body?.cancel();
    count(res.status);
    await sleep(5);
  });
  const submitted: string[] = [];
  const refused: number[] = [];
  const submitting = background(async (i) => {
    const res = await submit(urls[i % 2], { steps: 2, delay_ms: 10, children: 1 });
    if (res.status === 201) submitted.push((await res.json()).task_id);
    else {
      refused.push(res.status);
      await res.body?.cancel();
    }
    await sleep(20);
  });
  const submittedAtLeast = (n: number) => () => {
    if (broken) throw broken;
    return submitted.length >= n;
  };
  try {
    await until("10 tasks submitted before the failovers", submittedAtLeast(10));
    const failedOver = await cluster.failover(`${prefix}${PATH}:alice`);
    let after = submitted.length;
    await until("5 tasks submitted after CLUSTER FAILOVER", submittedAtLeast(after + 5));
    // kill -9 of the master of the first long task's... any other master: the one of a key
    // on another master than the rate limit's.
    const nodes = await cluster.nodes();
    const victim = nodes.find((n) =>
      n.flags.includes("master") && n.port !== failedOver.to &&
      nodes.some((r) => r.master === n.id && !r.flags.includes("fail"))
    )!;
    let key = "";
    for (let i = 0; !key; i++) if (await cluster.masterOf(`${prefix}k${i}`) === victim.port) key = `${prefix}k${i}`;
    const killed = await cluster.killMaster(key);
    assertEquals(following, followers.length, "a long task's stream ended before both failovers were over");
    after = submitted.length;
    await until("5 tasks submitted after kill -9", submittedAtLeast(after + 5));
    console.log(
      `failed over ${failedOver.from} → ${failedOver.to}, killed ${killed.from} → ${killed.to}; ` +
        `${submitted.length} tasks, refused ${refused.length} (${refused})`,
    );
  } finally {
    stop = true;
    await Promise.all([limited, submitting]);
  }
  if (broken) throw broken;
  console.log(`rate-limited route on both processes: ${JSON.stringify(Object.fromEntries(statuses))}`);
  assert((statuses.get(200) ?? 0) <= LIMIT, `${statuses.get(200)} answers 200 with a limit of ${LIMIT}`);
  assertEquals([...statuses.keys()].filter((s) => ![200, 429, 503].includes(s)), [], "only 200, 429 or 503");
  assert(refused.every((s) => s === 503), `submits refused with ${refused}`);

  // Every task (and its child) finishes once; asked of either process.
  const updates = new Map<string, number>();
  for (const [i, id] of submitted.entries()) {
    let task: { status: string; updates?: unknown[] } = { status: "" };
    await until(() => `task ${id} final (last seen: ${JSON.stringify(task)})`, async () => {
      const res = await fetch(`${urls[i % 2]}/tasks/${id}`);
      task = res.ok ? await res.json() : { status: `HTTP ${res.status}` };
      return ["done", "failed", "cancelled"].includes(task.status);
    });
    assertEquals(task.status, "done", `task ${id}`);
    updates.set(id, task.updates?.length ?? 0);
    const children = await (await fetch(`${urls[(i + 1) % 2]}/tasks/${id}/children`)).json();
    assertEquals(children.children.map((c: { status: string }) => c.status), ["done"], `children of ${id}`);
  }
  assertEquals(
    new Set(updates.values()).size,
    1,
    `updates per task (a task run twice has more): ${[...updates.values()]}`,
  );

  // Every resumed stream: every event once, in order, to done.
  for (const [i, { frames, connections }] of (await Promise.all(followers)).entries()) {
    assertEquals(frames.at(-1)?.event, "done");
    assertEquals(
      frames.map((f) => Number(f.id)),
      frames.map((_, n) => n + 1),
      `stream of ${longIds[i]}: gap or duplicate`,
    );
    assert(connections > 2, `stream of ${longIds[i]} resumed only ${connections - 1} times`);
    console.log(`stream of ${longIds[i]}: ${frames.length} events over ${connections} connections`);
  }
  for (const url of urls) {
    const health = await fetch(`${url}/health`);
    await health.body?.cancel();
    assertEquals(health.status, 200, `${url}/health`);
  }
}
