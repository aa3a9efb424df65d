/**
 * The runner against a real redis-server that stalls (SIGSTOP for 1.3 s, longer than the 1 s
 * store deadline) or restarts (SIGKILL, then started again on its append-only file) while a
 * task runs: the task rides it out and finishes once, each update and token stored once.
 */
import { z } from "zod";
import { assert, assertEquals } from "../../testing/assert.ts";
import { startRedisCluster } from "../../testing/redis_cluster.ts";
import { type RedisServer, startRedis } from "../../testing/redis_server.ts";
import { missingTools } from "../../testing/tools.ts";
import { until } from "../../testing/until.ts";
import { createMemoryStore, openStore, type Store, type StoredEvent, StoreUnavailableError } from "../store/mod.ts";
import { CLUSTER_PARTITIONS, TaskLayout } from "../store/tasks/layout.ts";
import { createTaskRunner, defineTask, demoTask } from "./mod.ts";
import { sleep } from "../time/mod.ts";

const STEPS = 60;
/** What a store call whose reply never came throws. */
const noAnswer = () => new StoreUnavailableError("Redis at 127.0.0.1:6379 did not answer within 1000 ms");

/** An update and a token per step, a little apart: a write is in flight whenever the store stalls. */
const chatty = defineTask({
  kind: "chatty",
  input: z.object({ steps: z.number() }),
  async run(ctx, input) {
    let text = "";
    for (let i = 1; i <= input.steps; i++) {
      await ctx.update(`step ${i}`);
      await ctx.token(`w${i} `);
      text += `w${i} `;
      await sleep(20);
    }
    return text;
  },
});

/**
 * The task's events until `until` holds (default: its final event), within `ms`. A follower
 * started while the store is down fails; it is started again after the last event it saw.
 */
async function eventsOf(
  store: Store,
  taskId: string,
  until: (e: StoredEvent) => boolean = (e) => ["done", "failed", "cancelled"].includes(e.kind),
  ms = 20_000,
): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  const signal = AbortSignal.timeout(ms);
  while (!signal.aborted) {
    try {
      for await (const event of store.events.follow(`task:${taskId}`, out.at(-1)?.id ?? 0, signal)) {
        out.push(event);
        if (until(event)) return out;
      }
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`task ${taskId}: no such event within ${ms} ms; got ${out.map((e) => e.kind).join(", ")}`);
}

async function rideOut(fault: (redis: RedisServer) => Promise<void>, redis: RedisServer) {
  // The default store deadline (1 s) and lease (30 s): the fault outlasts the deadline, not a third of the lease.
  const store = await openStore({ url: redis.url, prefix: `faults-${crypto.randomUUID()}:` });
  const lines: string[] = [];
  let retried = 0;
  const observer = { submitted() {}, running() {}, finished() {}, takenOver() {}, storeRetried: () => retried++ };
  const runner = createTaskRunner({ store, definitions: [chatty], log: (line) => lines.push(line), observer });
  try {
    const task = await runner.submit({ kind: "chatty", input: { steps: STEPS } });
    await eventsOf(store, task.task_id, (e) => e.data.message === "step 5");
    await fault(redis);
    const faultEnded = Date.now();
    const events = await eventsOf(store, task.task_id);
    const expected: [string, Record<string, unknown>][] = [];
    let answer = "";
    for (let i = 1; i <= STEPS; i++) {
      expected.push(["update", { task_id: task.task_id, message: `step ${i}`, update_type: "info" }]);
      expected.push(["token", { task_id: task.task_id, message: `w${i} ` }]);
      answer += `w${i} `;
    }
    expected.push(["done", { task_id: task.task_id, result: { answer } }]);
    assertEquals(events.map((e) => [e.kind, e.data]), expected, lines.join("\n"));
    assertEquals(events.map((e) => e.id), expected.map((_, i) => i + 1));
    const record = await store.tasks.get(task.task_id);
    assertEquals(record?.status, "done");
    assert(retried > 0, "the observer is told of the calls made again");
    assertEquals(
      record?.updates.map((u) => u.message),
      expected.slice(0, -1).filter(([k]) => k === "update").map(([, d]) => d.message),
    );
    // Finished once: its job is acknowledged, so no runner will take it over when the lease runs out.
    let jobs = await store.queue.take("probe", 0);
    for (let i = 0; jobs.length > 0 && i < 100; i++) {
      await sleep(20);
      jobs = await store.queue.take("probe", 0);
    }
    assertEquals(jobs, [], "the job is acknowledged");
    assert(!lines.some((l) => /cannot record|restarted|attempt \d|not renewed/.test(l)), lines.join("\n"));
    // The fault came mid-task (it finished after the fault ended), and each outage the runner saw was
    // logged as two lines (a loaded machine may see the resumed server miss a deadline once more).
    assert(Date.parse(record!.updated_at) >= faultEnded, `done at ${record!.updated_at}, before the fault ended`);
    const outages = lines.filter((l) => /^store (unreachable|answers again)/.test(l)).map((l) => l.split(" ")[1]);
    assert(outages.length >= 2, lines.join("\n"));
    assertEquals(outages, outages.map((_, i) => i % 2 === 0 ? "unreachable" : "answers"), lines.join("\n"));
  } finally {
    redis.resume();
    await runner.close();
    await store.close();
  }
}

Deno.test(
  "runner: a 1.3 s Redis pause mid-task is ridden out; the task finishes once, each update and token once",
  { ignore: missingTools("redis-server") },
  async () => {
    await using redis = await startRedis();
    await rideOut(async (r) => {
      r.pause();
      await sleep(1_300);
      r.resume();
    }, redis);
  },
);

Deno.test(
  "runner: a Redis restart mid-task is ridden out; the task finishes once, each update and token once",
  { ignore: missingTools("redis-server") },
  async () => {
    await using redis = await startRedis({ persist: true });
    await rideOut(async (r) => {
      await r.stop();
      await sleep(300);
      await r.start();
    }, redis);
  },
);

Deno.test("runner: steps whose reply is lost (applied, then an error) are repeated and recorded once", async () => {
  const store = createMemoryStore();
  let calls = 0;
  const lossy = {
    ...store.tasks,
    async step(...args: Parameters<Store["tasks"]["step"]>) {
      const outcome = await store.tasks.step(...args);
      if (++calls % 3 === 0) throw noAnswer();
      return outcome;
    },
  };
  const lines: string[] = [];
  const runner = createTaskRunner({
    store: { ...store, tasks: lossy },
    definitions: [chatty],
    log: (line) => lines.push(line),
  });
  try {
    const task = await runner.submit({ kind: "chatty", input: { steps: 10 } });
    const events = await eventsOf(store, task.task_id);
    assertEquals(events.map((e) => e.kind), [...Array(10).fill(["update", "token"]).flat(), "done"]);
    assertEquals((await store.tasks.get(task.task_id))?.updates.length, 10);
    assert(calls > 21, `${calls} step calls: the lost ones were repeated`);
  } finally {
    await runner.close();
  }
});

Deno.test("runner: a take whose reply is lost (applied, then an error) does not leave the task waiting out a lease", async () => {
  const store = createMemoryStore();
  let lost = false;
  const lossy = {
    ...store.queue,
    async take(...args: Parameters<Store["queue"]["take"]>) {
      const jobs = await store.queue.take(...args);
      if (jobs.length > 0 && !lost) {
        lost = true;
        throw noAnswer();
      }
      return jobs;
    },
  };
  const lines: string[] = [];
  const runner = createTaskRunner({
    store: { ...store, queue: lossy },
    definitions: [chatty],
    leaseMs: 60_000,
    log: (line) => lines.push(line),
  });
  try {
    const task = await runner.submit({ kind: "chatty", input: { steps: 2 } });
    const events = await eventsOf(store, task.task_id, undefined, 10_000);
    assertEquals(events.map((e) => e.data.message ?? e.kind), [
      "step 1",
      "w1 ",
      "step 2",
      "w2 ",
      "done",
    ]);
    assert(lost, "a take's reply was lost");
    assert(lines.some((l) => l.endsWith("taken again (a take's reply was lost)")), lines.join("\n"));
  } finally {
    await runner.close();
  }
});

Deno.test(
  "runner: a take a paused cluster master carries out after its deadline does not leave the task waiting out a lease",
  { ignore: missingTools("redis-server", "redis-cli") },
  async () => {
    await using cluster = await startRedisCluster();
    const prefix = `faults-${crypto.randomUUID()}:`;
    const store = await openStore({ url: cluster.url, prefix });
    let failedTakes = 0;
    const counted = {
      ...store.queue,
      take: (...args: Parameters<Store["queue"]["take"]>) =>
        store.queue.take(...args).catch((error) => {
          failedTakes++;
          throw error;
        }),
    };
    // A job in every partition, queued by a process that is gone: whichever partition a take stalls on,
    // the paused master leases that partition's job when it resumes.
    const layout = new TaskLayout(prefix, CLUSTER_PARTITIONS);
    const ids = Array.from({ length: CLUSTER_PARTITIONS }, (_, b) => {
      for (let k = 0;; k++) if (layout.rootPartition(`t${b}.${k}`) === b) return `t${b}.${k}`;
    });
    for (const id of ids) {
      await store.tasks.create({ task_id: id, kind: "chatty", session_id: id, metadata: {}, input: { steps: 2 } });
      await store.queue.push(id);
    }
    // Every master has the take script already (a server that has run for a while): a late EVALSHA runs.
    assertEquals(await store.queue.take("warm-up", 30_000, ["no-such-lane"]), []);
    const lines: string[] = [];
    const paused = await cluster.masterOf(`${layout.keys(0)}queue`);
    cluster.pause(paused);
    // The default lease (30 s): no task may wait for it.
    const runner = createTaskRunner({
      store: { ...store, queue: counted },
      definitions: [chatty],
      pollMs: 50,
      log: (line) => lines.push(line),
    });
    try {
      await until("a take past its deadline", () => failedTakes > 0);
      cluster.resume(paused); // it now carries out what it was sent: one take leases a job to the runner
      await until(() => `every task done; the runner said:\n${lines.join("\n")}`, async () => {
        const records = await Promise.all(ids.map((id) => store.tasks.get(id).catch(() => undefined)));
        return records.every((r) => r?.status === "done");
      }, 12_000);
      assert(lines.some((l) => l.endsWith("taken again (a take's reply was lost)")), lines.join("\n"));
    } finally {
      cluster.resume(paused);
      await runner.close();
      await store.close();
    }
  },
);

Deno.test("runner: with the control channel failing, submit, answer and cancel still answer and take effect", async () => {
  const store = createMemoryStore();
  const deaf = {
    ...store.events,
    async append(...args: Parameters<Store["events"]["append"]>) {
      if (args[0] === "control") {
        throw noAnswer();
      }
      return await store.events.append(...args);
    },
  };
  const runner = createTaskRunner({
    store: { ...store, events: deaf },
    definitions: [chatty, demoTask],
    log: () => {},
  });
  try {
    const task = await runner.submit({ kind: "chatty", input: { steps: 1 } });
    assertEquals((await eventsOf(store, task.task_id)).at(-1)?.kind, "done");
    const asking = await runner.submit({ kind: "demo", input: { steps: 0, ask: "Your name?" } });
    await eventsOf(store, asking.task_id, (e) => e.kind === "input_required");
    assertEquals(await runner.input(asking.task_id, "Ada"), { ok: true });
    assertEquals((await eventsOf(store, asking.task_id)).at(-1)?.data.result, { answer: "", input: "Ada" });
    const long = await runner.submit({ kind: "chatty", input: { steps: 1_000 } });
    assertEquals(await runner.cancel(long.task_id, true), { found: true, cancelled_count: 1 });
    assertEquals((await eventsOf(store, long.task_id)).at(-1)?.kind, "cancelled");
  } finally {
    await runner.close();
  }
});

Deno.test("runner: a submit stored and queued answers with the task though the read after it failed once", async () => {
  const store = createMemoryStore();
  let failed = false;
  const flaky = {
    ...store.tasks,
    async get(...args: Parameters<Store["tasks"]["get"]>) {
      if (!failed) {
        failed = true;
        throw noAnswer();
      }
      return await store.tasks.get(...args);
    },
  };
  const runner = createTaskRunner({ store: { ...store, tasks: flaky }, definitions: [chatty], log: () => {} });
  try {
    const task = await runner.submit({ kind: "chatty", input: { steps: 1 } });
    assert(failed, "the read failed once");
    assertEquals([task.kind, task.input], ["chatty", { steps: 1 }]);
    assertEquals((await eventsOf(store, task.task_id)).at(-1)?.kind, "done");
  } finally {
    await runner.close();
  }
});
