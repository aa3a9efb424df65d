import { assert, assertEquals } from "./assert.ts";
import { startRedis } from "./redis_server.ts";
import { DENO_SERVER, type ServerProcess, startServer } from "./server_process.ts";
import { sseEvents } from "./sse.ts";
import { missingTools } from "./tools.ts";

async function submit(server: ServerProcess, input: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${server.url}/tasks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ kind: "demo", input }),
  });
  assertEquals(res.status, 201);
  return (await res.json()).task_id;
}

/** Reads a task stream until `until` holds, then closes it. */
async function watch(
  server: ServerProcess,
  taskId: string,
  until: (event: string, data: Record<string, unknown>) => boolean,
) {
  const res = await fetch(`${server.url}/tasks/${taskId}/stream`);
  return await sseEvents(res.body!, (f) => until(f.event!, f.data!));
}

const env = (redisUrl: string, extra: Record<string, string> = {}) => ({
  STORE_URL: redisUrl,
  STORE_KEY_PREFIX: `runner-${crypto.randomUUID()}:`,
  ...extra,
});

Deno.test("runners on one Redis share queued work: a second task runs in the other process", {
  ignore: missingTools("redis-server"),
}, async () => {
  await using redis = await startRedis();
  const settings = env(redis.url, { TASK_CONCURRENCY: "1" });
  await using a = await startServer(DENO_SERVER, settings);
  await using b = await startServer(DENO_SERVER, settings);
  const first = await submit(a, { steps: 200, delay_ms: 20 });
  const second = await submit(a, { steps: 200, delay_ms: 20 });
  // Each process runs one root task at a time, so both progressing means each has one.
  await Promise.all([first, second].map((id) => watch(a, id, (e) => e === "update")));
  assertEquals((await (await fetch(`${a.url}/tasks/${first}/cancel`, { method: "POST" })).json()).cancelled_count, 1);
  assertEquals((await (await fetch(`${b.url}/tasks/${second}/cancel`, { method: "POST" })).json()).cancelled_count, 1);
});

Deno.test("a runner process killed mid-task: another process reclaims the task after its lease and finishes it", {
  ignore: missingTools("redis-server"),
}, async () => {
  await using redis = await startRedis();
  const settings = env(redis.url, { TASK_LEASE_SECONDS: "1" });
  await using a = await startServer(DENO_SERVER, settings);
  const id = await submit(a, { steps: 10, delay_ms: 100, tokens: ["o", "k"], children: 1 });
  await watch(a, id, (e, d) => e === "update" && d.message === "step 2 of 10");
  await using b = await startServer(DENO_SERVER, settings); // it could not have taken the task before
  await a.kill();
  const killedAt = Date.now();
  const events = await watch(b, id, (e) => e === "done" || e === "failed");
  const restarted = events.find((f) => f.data?.update_type === "retry");
  assertEquals(restarted?.data?.message, "restarted (attempt 2): the runner that had it stopped");
  assertEquals(events.at(-1)?.data, { task_id: id, result: { answer: "ok" } });
  assert(Date.now() - killedAt < 10_000, "reclaimed within lease + poll, not forever");
  const tree = await (await fetch(`${b.url}/tasks/${id}/tree`)).json();
  assertEquals(tree.children.map((c: { task: { status: string } }) => c.task.status), ["done"]);
});

Deno.test("SIGTERM hands a running task back: another process restarts it at once, not after the lease", {
  ignore: missingTools("redis-server"),
}, async () => {
  await using redis = await startRedis();
  const settings = env(redis.url, { TASK_LEASE_SECONDS: "60" });
  await using a = await startServer(DENO_SERVER, settings);
  const id = await submit(a, { steps: 20, delay_ms: 50 });
  await watch(a, id, (e) => e === "update");
  await using b = await startServer(DENO_SERVER, settings);
  const stoppedAt = Date.now();
  assertEquals(await a.stop(), 0);
  const events = await watch(b, id, (e) => e === "done");
  assert(events.some((f) => f.data?.update_type === "retry"));
  assert(Date.now() - stoppedAt < 15_000, `took over in ${Date.now() - stoppedAt} ms, well inside the 60 s lease`);
});
