import { z } from "zod";
import { assert, assertEquals, assertMatch, assertRejects } from "../../testing/assert.ts";
import { startRedis } from "../../testing/redis_server.ts";
import { missingTools } from "../../testing/tools.ts";
import { createMemoryStore, openStore, type Store, type StoredEvent } from "../store/mod.ts";
import { createTaskRunner, defineTask, demoTask, TaskInputError, type TaskRunner } from "./mod.ts";

/** An observer that ignores everything, for tests that listen to one part of it. */
const QUIET_OBSERVER = { submitted() {}, running() {}, finished() {}, takenOver() {}, storeRetried() {} };

const FINAL = new Set(["done", "failed", "cancelled"]);

/** The task's events until its final one (or `until` returns true). */
async function eventsOf(store: Store, taskId: string, until?: (e: StoredEvent) => boolean): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 10_000);
  try {
    for await (const event of store.events.follow(`task:${taskId}`, 0, controller.signal)) {
      out.push(event);
      if (until ? until(event) : FINAL.has(event.kind)) break;
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return out;
}

async function withRunner(
  store: Store,
  fn: (runner: TaskRunner) => Promise<void>,
  concurrency = 8,
) {
  const slow = defineTask({
    kind: "slow",
    input: z.object({ ms: z.number() }),
    async run(ctx, input) {
      await ctx.update("started");
      await new Promise((r) => setTimeout(r, input.ms));
      return "slept";
    },
  });
  const runner = createTaskRunner({ store, definitions: [demoTask, slow], concurrency, log: () => {} });
  try {
    await fn(runner);
  } finally {
    await runner.close();
    await new Promise((r) => setTimeout(r, 50)); // let aborted followers finish
    await store.close();
  }
}

async function suite(t: Deno.TestContext, open: () => Promise<Store>) {
  await t.step("demo: steps, tokens, done with the tokens joined; updates on the record", async () => {
    const store = await open();
    await withRunner(store, async (runner) => {
      const task = await runner.submit({ kind: "demo", input: { steps: 2, delay_ms: 5, tokens: ["Hel", "lo"] } });
      assertEquals([task.status, task.kind, task.metadata], ["in_progress", "demo", { message: "demo task" }]);
      const events = await eventsOf(store, task.task_id);
      assertEquals(events.map((e) => [e.kind, e.data]), [
        ["update", { task_id: task.task_id, message: "step 1 of 2", update_type: "info" }],
        ["update", { task_id: task.task_id, message: "step 2 of 2", update_type: "info" }],
        ["token", { task_id: task.task_id, message: "Hel" }],
        ["token", { task_id: task.task_id, message: "lo" }],
        ["done", { task_id: task.task_id, result: { answer: "Hello" } }],
      ]);
      const record = await store.tasks.get(task.task_id);
      assertEquals([record?.status, record?.result], ["done", { answer: "Hello" }]);
      assertEquals(record?.updates.map((u) => u.message), ["step 1 of 2", "step 2 of 2"]);
    });
  });

  await t.step("demo: children and depth build the tree with spawn keys, run concurrently", async () => {
    const store = await open();
    await withRunner(store, async (runner) => {
      const started = Date.now();
      const task = await runner.submit({ kind: "demo", input: { steps: 3, delay_ms: 100, children: 2, depth: 2 } });
      const events = await eventsOf(store, task.task_id);
      const elapsed = Date.now() - started;
      // 7 tasks of 200 ms each: concurrent, so well under 7 × 200 ms
      assert(elapsed < 1_000, `took ${elapsed} ms`);
      assertEquals(events.at(-1)?.kind, "done");
      const kinds = events.map((e) => e.kind);
      assertEquals(kinds.filter((k) => k === "subtask_spawned").length, 2);
      assertEquals(kinds.filter((k) => k === "subtask_done").length, 2);
      const children = await store.tasks.children(task.task_id);
      assertEquals(children.map((c) => [c.spawn_key, c.status]), [["child-0", "done"], ["child-1", "done"]]);
      for (const child of children) {
        const grandchildren = await store.tasks.children(child.task_id);
        assertEquals(grandchildren.map((c) => [c.spawn_key, c.status, c.session_id]), [
          ["child-0", "done", task.session_id],
          ["child-1", "done", task.session_id],
        ]);
        assertEquals((await store.tasks.children(grandchildren[0].task_id)).length, 0);
      }
    });
  });

  await t.step("demo: ask waits in input_required; the answer resumes it into the result", async () => {
    const store = await open();
    await withRunner(store, async (runner) => {
      const task = await runner.submit({ kind: "demo", input: { steps: 0, tokens: ["x"], ask: "Your name?" } });
      const asked = await eventsOf(store, task.task_id, (e) => e.kind === "input_required");
      assertEquals(asked.at(-1)?.data, { task_id: task.task_id, prompt: "Your name?" });
      assertEquals((await store.tasks.get(task.task_id))?.status, "input_required");
      assertEquals(await runner.input(task.task_id, "Ada"), { ok: true });
      const again = await runner.input(task.task_id, "again"); // it may have finished already
      assert(!again.ok && ["in_progress", "done"].includes(again.status!), JSON.stringify(again));
      const events = await eventsOf(store, task.task_id);
      assertEquals(events.at(-1)?.data, { task_id: task.task_id, result: { answer: "x", input: "Ada" } });
      assertEquals(await runner.input(task.task_id, "late"), { ok: false, status: "done" });
      assertEquals(await runner.input("nope", "x"), { ok: false });
    });
  });

  await t.step("demo: fail ends failed with the message; a failing child fails its parent", async () => {
    const store = await open();
    await withRunner(store, async (runner) => {
      const task = await runner.submit({ kind: "demo", input: { steps: 1, delay_ms: 0, fail: "boom" } });
      assertEquals((await eventsOf(store, task.task_id)).at(-1)?.data, { task_id: task.task_id, error: "boom" });
      assertEquals((await store.tasks.get(task.task_id))?.error, "boom");
      const failing = defineTask({
        kind: "parent",
        input: z.object({}),
        async run(ctx) {
          await ctx.spawn("demo", { steps: 0, fail: "child broke" }, { key: "worker" });
        },
      });
      const other = await open(); // runners of one store share the queue, so all know the same kinds
      const second = createTaskRunner({ store: other, definitions: [demoTask, failing], log: () => {} });
      const parent = await second.submit({ kind: "parent" });
      const last = (await eventsOf(other, parent.task_id)).at(-1);
      assertEquals(last?.kind, "failed");
      assert(/^Sub-task worker \(.+\) failed: child broke$/.test(String(last?.data.error)), String(last?.data.error));
      await second.close();
      await other.close();
    });
  });

  await t.step("cancel: cascade counts only tasks it moved and stops them; no event after cancelled", async () => {
    const store = await open();
    await withRunner(store, async (runner) => {
      const task = await runner.submit({ kind: "demo", input: { steps: 100, delay_ms: 20, children: 2, depth: 2 } });
      await eventsOf(store, task.task_id, (e) => e.kind === "update");
      const [first] = await store.tasks.children(task.task_id);
      assertEquals(await runner.cancel(first.task_id, false), { found: true, cancelled_count: 1 });
      // root + child-1 + child-1's two children; child-0's children still run (no cascade above)
      assertEquals(await runner.cancel(task.task_id, true), { found: true, cancelled_count: 6 });
      assertEquals(await runner.cancel(task.task_id, true), { found: true, cancelled_count: 0 });
      assertEquals(await runner.cancel("nope", true), { found: false, cancelled_count: 0 });
      const before = await store.events.range(`task:${task.task_id}`, 0);
      await new Promise((r) => setTimeout(r, 150));
      const after = await store.events.range(`task:${task.task_id}`, 0);
      assertEquals(after.length, before.length, "the cancelled task emitted nothing more");
      assertEquals(after.filter((e) => e.kind === "cancelled").length, 1);
    });
  });

  await t.step("submit: unknown kind and bad input are TaskInputErrors listing the fields", async () => {
    const store = await open();
    await withRunner(store, async (runner) => {
      const unknown = await assertRejects(() => runner.submit({ kind: "nope" }), /Unknown task kind 'nope'/);
      assert(unknown instanceof TaskInputError);
      assertEquals(unknown.errors, [{ field: "kind", message: "Unknown task kind 'nope'; use one of: demo, slow" }]);
      const bad = await assertRejects(
        () => runner.submit({ kind: "demo", input: { steps: -1, tokens: "x", extra: 1 } }),
        /Invalid input for task kind 'demo'/,
      );
      assert(bad instanceof TaskInputError);
      assertEquals(bad.errors.map((e) => e.field).sort(), ["input", "input.steps", "input.tokens"]);
      assertEquals((await store.tasks.list({ limit: 10 })).total, 0, "nothing stored");
    });
  });

  await t.step("concurrency: root tasks beyond the limit wait their turn", async () => {
    const store = await open();
    await withRunner(store, async (runner) => {
      const a = await runner.submit({ kind: "slow", input: { ms: 200 } });
      const b = await runner.submit({ kind: "slow", input: { ms: 10 } });
      await eventsOf(store, a.task_id, (e) => e.kind === "update");
      await new Promise((r) => setTimeout(r, 50));
      assertEquals((await store.events.range(`task:${b.task_id}`, 0)).length, 0, "b has not started");
      await eventsOf(store, b.task_id);
      assertEquals((await store.tasks.get(a.task_id))?.status, "done", "a finished first");
    }, 1);
  });

  await t.step("lanes: a full lane keeps no other waiting; a kind with a limit runs in a lane of its own", async () => {
    const store = await open();
    const sleeper = (kind: string, lane?: string) =>
      defineTask({
        kind,
        lane,
        input: z.object({ ms: z.number() }),
        async run(ctx, input) {
          await ctx.update("started");
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, input.ms);
            ctx.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()));
          });
        },
      });
    const lines: string[] = [];
    const runner = createTaskRunner({
      store,
      definitions: [sleeper("slow"), sleeper("ingest", "pipelines"), sleeper("answer")],
      concurrency: 1,
      lanes: { pipelines: 1 },
      kindConcurrency: { answer: 2, nope: 1 },
      log: (line) => lines.push(line),
    });
    try {
      const long = await runner.submit({ kind: "slow", input: { ms: 5_000 } });
      await eventsOf(store, long.task_id, (e) => e.kind === "update");
      const queued = await runner.submit({ kind: "slow", input: { ms: 0 } });
      const answers = await Promise.all([1, 2, 3].map(() => runner.submit({ kind: "answer", input: { ms: 300 } })));
      const ingest = await runner.submit({ kind: "ingest", input: { ms: 0 } });
      assertEquals((await eventsOf(store, ingest.task_id)).at(-1)?.kind, "done", "the pipelines lane runs");
      await eventsOf(store, answers[1].task_id, (e) => e.kind === "update");
      assertEquals((await store.tasks.get(answers[0].task_id))?.status, "in_progress");
      assertEquals((await store.events.range(`task:${answers[2].task_id}`, 0)).length, 0, "two answers at once");
      assertEquals((await eventsOf(store, answers[2].task_id)).at(-1)?.kind, "done", "the third after them");
      assertEquals((await store.events.range(`task:${queued.task_id}`, 0)).length, 0, "the full lane still waits");
      assertEquals(lines, [
        "a concurrency limit names 'nope', which is not a task kind; ignored (kinds: slow, ingest, answer)",
      ]);
    } finally {
      await runner.close();
      await store.close();
    }
  });

  await t.step("remove: cancels a running tree, then deletes it", async () => {
    const store = await open();
    await withRunner(store, async (runner) => {
      const task = await runner.submit({ kind: "demo", input: { steps: 100, delay_ms: 20, children: 1 } });
      await eventsOf(store, task.task_id, (e) => e.kind === "subtask_spawned");
      const [child] = await store.tasks.children(task.task_id);
      assertEquals(await runner.remove(task.task_id), true);
      assertEquals([await store.tasks.get(task.task_id), await store.tasks.get(child.task_id)], [undefined, undefined]);
      assertEquals(await runner.remove(task.task_id), false);
      assertEquals((await store.tasks.list({ limit: 10 })).total, 0);
    });
  });

  await t.step("close() hands running root tasks back: another runner restarts them at once", async () => {
    const store = await open();
    const a = createTaskRunner({ store, definitions: [demoTask], log: () => {}, pollMs: 50 });
    const task = await a.submit({ kind: "demo", input: { steps: 100, delay_ms: 20, tokens: ["z"], children: 1 } });
    await eventsOf(store, task.task_id, (e) => e.kind === "subtask_spawned");
    const [oldChild] = await store.tasks.children(task.task_id);
    await a.close();
    const takenOver: string[] = [];
    const observer = { ...QUIET_OBSERVER, takenOver: (lane: string) => takenOver.push(lane) };
    const b = createTaskRunner({ store, definitions: [demoTask], log: () => {}, pollMs: 50, observer });
    try {
      const started = Date.now();
      // Until the second attempt has spawned its own child (after the retry event).
      let retried = false;
      const events = await eventsOf(
        store,
        task.task_id,
        (e) => (retried ||= e.data.update_type === "retry") && e.kind === "subtask_spawned",
      );
      assert(Date.now() - started < 2_000, "taken over long before the 30 s lease ran out");
      assertEquals(takenOver, ["tasks"], "the observer is told of the takeover, with its lane");
      const retry = events.find((e) => e.data.update_type === "retry");
      assertEquals(retry?.data.message, "restarted (attempt 2): the runner that had it stopped");
      await b.cancel(task.task_id, true);
      assertEquals(await store.tasks.get(oldChild.task_id), undefined, "the first attempt's child is gone");
      assertEquals((await store.tasks.children(task.task_id)).map((c) => c.spawn_key), ["child-0"]);
    } finally {
      await b.close();
      await store.close();
    }
  });

  await t.step(
    "close() announces the tasks it hands back: a runner that is not polling takes them at once",
    async () => {
      const store = await open();
      const a = createTaskRunner({ store, definitions: [demoTask], log: () => {}, pollMs: 60_000 });
      const task = await a.submit({ kind: "demo", input: { steps: 100, delay_ms: 20 } });
      await eventsOf(store, task.task_id, (e) => e.kind === "update");
      // It looks for work only when told (its first poll is a minute away); it follows the control channel from now.
      const b = createTaskRunner({ store, definitions: [demoTask], log: () => {}, pollMs: 60_000 });
      try {
        await a.close();
        const events = await eventsOf(store, task.task_id, (e) => e.data.update_type === "retry");
        assertEquals(events.at(-1)?.data.message, "restarted (attempt 2): the runner that had it stopped");
        await b.cancel(task.task_id, true);
      } finally {
        await b.close();
        await store.close();
      }
    },
  );

  await t.step(
    "close() while a take is in flight: the task taken is handed back, not started, before close() ends",
    async () => {
      const store = await open();
      // The runner's take finds the job but answers only once close() has begun: taken while it closes.
      let answer = () => {};
      const closing = new Promise<void>((resolve) => answer = resolve);
      const queue = {
        ...store.queue,
        take: async (...args: Parameters<Store["queue"]["take"]>) => {
          const jobs = await store.queue.take(...args);
          if (jobs.length > 0) await closing;
          return jobs;
        },
      };
      const a = createTaskRunner({ store: { ...store, queue }, definitions: [demoTask], log: () => {} });
      // ask makes the demo wait for input forever: a run started after close() began would never end
      const task = await a.submit({ kind: "demo", input: { steps: 0, ask: "name?" } });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const hung = new Promise<string>((resolve) => timer = setTimeout(() => resolve("hung"), 5_000));
      try {
        const closed = a.close().then(() => "closed");
        answer();
        assertEquals(await Promise.race([closed, hung]), "closed");
        assertEquals((await store.tasks.get(task.task_id))?.status, "in_progress");
        const [next] = await store.queue.take("b", 60_000);
        assertEquals([next?.taskId, next?.reclaimed], [task.task_id, true], "handed back by the time close() ended");
      } finally {
        clearTimeout(timer);
        await store.close();
      }
    },
  );

  await t.step("a task whose runner stopped too often fails as lost, its descendants cancelled", async () => {
    const store = await open();
    await store.tasks.create({ task_id: "lost", kind: "demo", session_id: "s", metadata: {}, input: {} });
    await store.tasks.create({
      task_id: "lost-child",
      kind: "demo",
      session_id: "s",
      metadata: {},
      input: {},
      parent_id: "lost",
      spawn_key: "child-0",
    });
    await store.queue.push("lost", 3);
    await store.queue.take("a-dead-runner", 60_000);
    const runner = createTaskRunner({ store, definitions: [demoTask], log: () => {}, leaseMs: 100, pollMs: 50 });
    try {
      const events = await eventsOf(store, "lost");
      assertEquals(events.at(-1)?.data, { task_id: "lost", error: "The task's runner stopped 3 times; giving up" });
      assertEquals((await store.tasks.get("lost-child"))?.status, "cancelled");
    } finally {
      await runner.close();
      await store.close();
    }
  });
}

Deno.test("task runner: memory store", (t) => suite(t, () => Promise.resolve(createMemoryStore())));

Deno.test("task runner: Redis (real redis-server)", { ignore: missingTools("redis-server") }, async (t) => {
  await using redis = await startRedis();
  await suite(t, () => openStore({ url: redis.url, prefix: `rt-${crypto.randomUUID()}:` }));
});

Deno.test("a runner polling a store that is down logs the outage once, and its end once", async () => {
  const store = createMemoryStore();
  let failed = 0;
  let answered = 0;
  const failure = () => (failed++, Promise.reject(new Error("Redis at 127.0.0.1:6390 is not reachable")));
  const queue = {
    ...store.queue,
    take: (...a: Parameters<Store["queue"]["take"]>) => failed < 5 ? failure() : (answered++, store.queue.take(...a)),
  };
  const lines: string[] = [];
  const runner = createTaskRunner({
    store: { ...store, queue },
    definitions: [demoTask],
    log: (line) => lines.push(line),
    pollMs: 5,
  });
  try {
    // Five polls fail, then the store answers: wait for a few answered polls.
    for (let i = 0; answered < 3 && i < 1_000; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  } finally {
    await runner.close();
  }
  assertEquals(lines.length, 2, lines.join("\n"));
  assertEquals(lines[0], "store unreachable task queue: Redis at 127.0.0.1:6390 is not reachable");
  assertMatch(lines[1], /^store answers again after \d+\.\d s; 5 calls failed meanwhile$/);
});

Deno.test("an idle runner looks for work less and less often, down to every 8 polls, and still finds work queued unannounced", async () => {
  const store = createMemoryStore();
  const takes: number[] = [];
  const queue = {
    ...store.queue,
    take: (...a: Parameters<Store["queue"]["take"]>) => (takes.push(performance.now()), store.queue.take(...a)),
  };
  const pollMs = 50;
  const runner = createTaskRunner({ store: { ...store, queue }, definitions: [demoTask], log: () => {}, pollMs });
  try {
    while (takes.length < 6) await new Promise((resolve) => setTimeout(resolve, pollMs));
    const gaps = takes.slice(1, 6).map((at, i) => at - takes[i]);
    // Each empty poll doubles the wait, up to 8 polls. Late timers only lengthen a gap: the lower bounds hold on a
    // loaded machine, and the upper one is generous.
    [2, 4, 8, 8, 8].forEach((factor, i) => assert(gaps[i] >= factor * pollMs * 0.9, `gaps ${gaps}`));
    assert(gaps.slice(2).every((gap) => gap < 8 * pollMs + 1_000), `polls stop at every 8: gaps ${gaps}`);
    // Queued with no notice (as by a process whose notice was lost): a poll still finds it.
    await store.tasks.create({ task_id: "quiet", kind: "demo", session_id: "s", metadata: {}, input: { steps: 0 } });
    await store.queue.push("quiet", 1);
    assertEquals((await eventsOf(store, "quiet")).at(-1)?.kind, "done");
  } finally {
    await runner.close();
    await store.close();
  }
});

Deno.test("a submit tells other runners of its task only when its own runner did not take it", async () => {
  const store = createMemoryStore();
  // B looks for work only when told (its first poll is a minute away): each take it makes answers a notice.
  let bTakes = 0;
  const queue = {
    ...store.queue,
    take: (...a: Parameters<Store["queue"]["take"]>) => (bTakes++, store.queue.take(...a)),
  };
  const a = createTaskRunner({ store, definitions: [demoTask], log: () => {}, concurrency: 1 });
  const b = createTaskRunner({ store: { ...store, queue }, definitions: [demoTask], log: () => {}, pollMs: 60_000 });
  try {
    const first = await a.submit({ kind: "demo", input: { steps: 0 } });
    assertEquals((await eventsOf(store, first.task_id)).at(-1)?.kind, "done");
    assertEquals(bTakes, 0, "A took it: nobody else was told");
    // A's one slot is taken by a task that waits for an answer: the next one is announced, and B runs it.
    const waiting = await a.submit({ kind: "demo", input: { steps: 0, ask: "name?" } });
    await eventsOf(store, waiting.task_id, (e) => e.kind === "input_required");
    const second = await a.submit({ kind: "demo", input: { steps: 0 } });
    assertEquals((await eventsOf(store, second.task_id)).at(-1)?.kind, "done");
    assert(bTakes > 0, "B was told");
    await a.cancel(waiting.task_id, true);
  } finally {
    await a.close();
    await b.close();
    await store.close();
  }
});

Deno.test("a root's first run reads its record from the store once", async () => {
  const store = createMemoryStore();
  const reads: string[] = [];
  const tasks = { ...store.tasks, get: (id: string) => (reads.push(id), store.tasks.get(id)) };
  const runner = createTaskRunner({ store: { ...store, tasks }, definitions: [demoTask], log: () => {} });
  try {
    const task = await runner.submit({ kind: "demo", input: { steps: 0 } });
    assertEquals((await eventsOf(store, task.task_id)).at(-1)?.kind, "done");
    // One read answers the submit; one more serves the run (taken, checked and run from it).
    assertEquals(reads, [task.task_id, task.task_id]);
  } finally {
    await runner.close();
    await store.close();
  }
});
