/**
 * Starvation: a server process with its default settings, on the memory store and on
 * a real redis-server, busy with 8 and with 100 long tasks that mostly wait, still finishes a
 * short task and a pipeline run submitted after them within 2 s.
 *
 * @module
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { startRedis } from "../testing/redis_server.ts";
import { DENO_SERVER, type ServerProcess, startServer } from "../testing/server_process.ts";
import { sseEvents } from "../testing/sse.ts";
import { missingTools } from "../testing/tools.ts";

async function post(server: ServerProcess, path: string, body: unknown): Promise<string> {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  assertEquals(res.status, 201, await res.clone().text());
  return (await res.json()).task_id;
}

/** Milliseconds from now until the task's stream ends with `done`; fails after `ms`. */
async function finishes(server: ServerProcess, taskId: string, ms: number): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${server.url}/tasks/${taskId}/stream?events=done,failed,cancelled`, {
    signal: AbortSignal.timeout(ms),
  });
  const frames = await sseEvents(res.body!).catch((e) => {
    throw new Error(`task ${taskId} did not finish within ${ms} ms (${(e as Error).message})`);
  });
  assertEquals(frames.at(-1)?.event, "done");
  return performance.now() - started;
}

async function behindLongTasks(env: Record<string, string>, long: number) {
  await using server = await startServer(DENO_SERVER, env);
  // Each sleeps 100 ms between 600 steps: a minute of mostly waiting.
  for (let i = 0; i < long; i++) await post(server, "/tasks", { kind: "demo", input: { steps: 600, delay_ms: 100 } });
  const started = performance.now();
  const short = await post(server, "/tasks", { kind: "demo", input: { steps: 1, delay_ms: 0, tokens: ["ok"] } });
  const pipeline = await post(server, "/pipelines/run", {
    documents: [{ title: "Lanes", content: "A pipeline has a lane of its own.", source: "lanes.md" }],
    chunk_size: 200,
  });
  const [a, b] = await Promise.all([finishes(server, short, 5_000), finishes(server, pipeline, 5_000)]);
  const elapsed = performance.now() - started;
  assert(elapsed < 2_000, `the short task took ${a.toFixed(0)} ms, the pipeline run ${b.toFixed(0)} ms behind ${long}`);
}

for (const long of [8, 100]) {
  Deno.test(`server on memory: a short task and a pipeline run behind ${long} long tasks finish within 2 s`, () =>
    behindLongTasks({ STORE_URL: "memory:" }, long));

  Deno.test(
    `server on Redis: a short task and a pipeline run behind ${long} long tasks finish within 2 s`,
    { ignore: missingTools("redis-server") },
    async () => {
      await using redis = await startRedis();
      await behindLongTasks({ STORE_URL: redis.url, STORE_KEY_PREFIX: `lanes-${crypto.randomUUID()}:` }, long);
    },
  );
}
