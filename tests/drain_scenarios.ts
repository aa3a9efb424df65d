/**
 * A graceful drain, on two server processes over one redis-server, for the Deno server
 * (`task_e2e_test.ts`) and the Node bundle (`task_node_test.ts`): 200 task streams open on A,
 * its tasks running; SIGTERM A. Each stream ends with a `retry:` hint and its client resumes
 * on B with `Last-Event-ID`, seeing every event of its task once, in order; A's tasks are
 * handed back and B finishes each once (leases of an hour: no takeover waits for one); while A
 * drains it refuses new tasks and streams with 503 and `Retry-After`, and it exits within
 * `SHUTDOWN_TIMEOUT_MS`.
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { startRedis } from "../testing/redis_server.ts";
import { type ServerProcess, startServer } from "../testing/server_process.ts";
import { sseEvents, type SseFrame, sseFrames } from "../testing/sse.ts";
import { until } from "../testing/until.ts";
import type { TaskScenario } from "./task_scenarios.ts";

const TASKS = 10;
const SUBSCRIBERS = 20; // per task: 200 streams
const SHUTDOWN_TIMEOUT_MS = 4_000;

async function submit(server: ServerProcess): Promise<Response> {
  return await fetch(`${server.url}/tasks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    // Updates for a moment, then a question: running (held by its runner) until answered.
    body: JSON.stringify({ kind: "demo", input: { steps: 10, delay_ms: 50, ask: "go on?" } }),
  });
}

/** One subscriber: a task stream on `first` until it ends, then on `second` after the last id it saw. */
async function subscribe(first: ServerProcess, taskId: string, opened: () => void, second: () => ServerProcess) {
  const seen: SseFrame[] = [];
  let last: SseFrame | undefined;
  const res = await fetch(`${first.url}/tasks/${taskId}/stream`);
  assertEquals(res.status, 200, "a stream on A");
  opened();
  for await (const frame of sseFrames(res.body!)) {
    if (frame.event) seen.push(frame);
    last = frame;
  }
  const lastId = seen.at(-1)?.id;
  if (seen.at(-1)?.event === "done") return { seen, ended: last, resumed: false };
  const again = await fetch(`${second().url}/tasks/${taskId}/stream`, {
    headers: lastId === undefined ? {} : { "last-event-id": lastId },
  });
  assertEquals(again.status, 200, "the stream resumed on B");
  seen.push(...await sseEvents(again.body!));
  return { seen, ended: last, resumed: true };
}

export const DRAIN_SCENARIOS: readonly TaskScenario[] = [{
  name:
    "SIGTERM drains: 200 streams resume on the other process exactly once, in order; tasks move at once and end once",
  tools: ["redis-server"],
  async run(command) {
    await using redis = await startRedis();
    const shared = {
      STORE_URL: redis.url,
      STORE_KEY_PREFIX: `drain-${crypto.randomUUID()}:`,
      TASK_LEASE_SECONDS: "3600", // a task that moved before its lease ran out was handed back
    };
    await using a = await startServer(command, {
      ...shared,
      DRAIN_GRACE_MS: "1500",
      DRAIN_RETRY_MS: "500",
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    });
    // Submitted while A is the only process: A runs them all.
    const ids: string[] = [];
    for (let i = 0; i < TASKS; i++) {
      const res = await submit(a);
      assertEquals(res.status, 201);
      ids.push((await res.json()).task_id);
    }
    let open = 0;
    const resumeOn: { b?: ServerProcess } = {}; // B, once it runs
    const subscribers = ids.flatMap((id) =>
      Array.from({ length: SUBSCRIBERS }, () => subscribe(a, id, () => open++, () => resumeOn.b!))
    );
    // Awaited below; an assertion failing before then must not leave them unhandled.
    for (const subscriber of subscribers) subscriber.catch(() => {});
    await until("200 streams open on A", () => open === TASKS * SUBSCRIBERS, 10_000);
    await using b = await startServer(command, shared);
    resumeOn.b = b;

    const stopping = performance.now();
    const exited = a.stop();
    await until("A's /readyz fails", async () => (await fetch(`${a.url}/readyz`)).status === 503, 1_000);
    // Within DRAIN_GRACE_MS A still answers: no new work, no new streams.
    const refused = [await submit(a), await fetch(`${a.url}/tasks/${ids[0]}/stream`)];
    for (const res of refused) {
      const body = await res.json();
      assertEquals([res.status, res.headers.get("retry-after")], [503, "1"], JSON.stringify(body));
      assertMatch(body.detail, /shutting down/);
    }
    assertEquals(await exited, 0, "A exits cleanly");
    const took = performance.now() - stopping;
    assert(took < SHUTDOWN_TIMEOUT_MS, `A exited ${took.toFixed(0)} ms after SIGTERM (SHUTDOWN_TIMEOUT_MS=4000)`);

    // B restarts each task (its updates again, then the question); answered there, each ends.
    for (const id of ids) {
      await until(`B restarts task ${id} and it asks again`, async () => {
        const task = await (await fetch(`${b.url}/tasks/${id}`)).json();
        const restarts = task.updates.filter((u: { message: string }) => /restarted \(attempt 2\)/.test(u.message));
        return task.status === "input_required" && restarts.length === 1;
      }, 10_000);
      const answered = await fetch(`${b.url}/tasks/${id}/input`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: "yes" }),
      });
      assertEquals(answered.status, 200, await answered.text());
    }
    const results = await Promise.all(subscribers);
    for (const [n, { seen, ended, resumed }] of results.entries()) {
      const taskId = ids[Math.floor(n / SUBSCRIBERS)];
      assert(resumed, `subscriber ${n} was still following task ${taskId} at the SIGTERM`);
      assertEquals(ended?.retry, 500, `subscriber ${n}: A's last frame is the drain's retry hint`);
      assertMatch(ended?.comment ?? "", /reconnect with Last-Event-ID/);
      const all = await sseEvents((await fetch(`${b.url}/tasks/${taskId}/stream`)).body!);
      assertEquals(seen.map((f) => f.id), all.map((f) => f.id), `subscriber ${n}: every event once, in order`);
    }
    let restarted = 0;
    for (const id of ids) {
      const all = await sseEvents((await fetch(`${b.url}/tasks/${id}/stream`)).body!);
      assertEquals(all.filter((f) => f.event === "done").length, 1, `task ${id} ran to completion once`);
      if (all.some((f) => /restarted \(attempt 2\)/.test(String(f.data?.message)))) restarted++;
      assertEquals((await (await fetch(`${b.url}/tasks/${id}`)).json()).status, "done");
    }
    assertEquals(restarted, TASKS, "each of A's tasks was handed back and taken by B");
  },
}];
