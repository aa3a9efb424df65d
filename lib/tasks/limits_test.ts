import { z } from "zod";
import { assert, assertEquals, assertMatch, assertRejects } from "../../testing/assert.ts";
import { startRedis } from "../../testing/redis_server.ts";
import { missingTools } from "../../testing/tools.ts";
import { until } from "../../testing/until.ts";
import { createMemoryStore, openStore, type Store } from "../store/mod.ts";
import {
  createTaskRunner,
  DEFAULT_TASK_LIMITS,
  defineTask,
  demoFootprint,
  demoTask,
  TaskInputError,
  type TaskLimits,
  TaskQuotaError,
  type TaskRunner,
} from "./mod.ts";

/** Emits tokens until it is stopped. */
const flood = defineTask({
  kind: "flood",
  input: z.object({}),
  async run(ctx) {
    for (;;) await ctx.token("x");
  },
});

/** Spawns children (that finish at once) until it is stopped. */
const sprawl = defineTask({
  kind: "sprawl",
  input: z.object({}),
  async run(ctx) {
    for (;;) await ctx.spawn("demo", { steps: 0 });
  },
});

async function withRunner(store: Store, limits: Partial<TaskLimits>, fn: (runner: TaskRunner) => Promise<void>) {
  const runner = createTaskRunner({
    store,
    definitions: [demoTask, flood, sprawl],
    limits: { ...DEFAULT_TASK_LIMITS, ...limits },
    log: () => {},
  });
  try {
    await fn(runner);
  } finally {
    await runner.close();
    await store.close();
  }
}

/** The error `fn` rejects with, which must be a `type`. */
async function refused<E extends Error>(fn: () => Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  const error = await assertRejects(fn);
  assert(error instanceof type, `expected a ${type.name}, got ${error.name}: ${error.message}`);
  return error;
}

const final = async (store: Store, id: string) => {
  await until(`task ${id} final`, async () => /^(done|failed|cancelled)$/.test((await store.tasks.get(id))!.status));
  return (await store.tasks.get(id))!;
};

Deno.test("demoFootprint() counts the tree the demo kind's input makes", () => {
  const input = (extra: Record<string, unknown>) =>
    ({ steps: 3, delay_ms: 0, tokens: [], children: 0, depth: 1, ...extra }) as never;
  assertEquals(demoFootprint(input({})), { tasks: 1, taskEvents: 4, events: 4 });
  // 1 + 10 + 100 + 1,000 tasks; each of the 1,110 below the root adds subtask_spawned and subtask_done to its parent's.
  const probe = demoFootprint(input({ steps: 0, children: 10, depth: 3, tokens: Array(2_000).fill("t") }));
  assertEquals(probe.tasks, 1_111);
  assertEquals(probe.taskEvents, 2_001 + 20);
  assertEquals(probe.events, 1_111 * 2_001 + 2 * 1_110);
  assertEquals(demoFootprint(input({ ask: "?", children: 2 })).tasks, 3);
});

async function suite(t: Deno.TestContext, open: () => Promise<Store>) {
  await t.step("submit: a request over a tree limit is refused naming it, before anything is stored", async () => {
    const store = await open();
    await withRunner(store, {}, async (runner) => {
      const probe = { steps: 0, children: 10, depth: 3, tokens: Array(2_000).fill("token") };
      const probeError = await refused(() => runner.submit({ kind: "demo", input: probe }), TaskInputError);
      assertMatch(probeError.message, /1,111 tasks.*at most 100.*TASK_MAX_TREE_TASKS/);
      const tokens = await refused(
        () => runner.submit({ kind: "demo", input: { steps: 0, tokens: Array(60_000).fill("t") } }),
        TaskInputError,
      );
      assertMatch(tokens.message, /60,001 events.*at most 50,000.*TASK_MAX_EVENTS/);
      const wide = await refused(
        () => runner.submit({ kind: "demo", input: { steps: 0, children: 10, tokens: Array(10_000).fill("t") } }),
        TaskInputError,
      );
      assertMatch(wide.message, /110,031 events.*at most 100,000.*TASK_MAX_TREE_EVENTS/);
      assertEquals(await store.tasks.usage(), { live: 0, stored: 0, events: 0 }, "nothing stored");
    });
  });

  await t.step("submit: the limits are settings; within them the same request runs", async () => {
    const store = await open();
    await withRunner(store, { treeTasks: 12 }, async (runner) => {
      await refused(() => runner.submit({ kind: "demo", input: { steps: 0, children: 3, depth: 2 } }), TaskInputError);
      const task = await runner.submit({ kind: "demo", input: { steps: 0, children: 10 } });
      assertEquals((await final(store, task.task_id)).status, "done");
      assertEquals((await store.tasks.usage()).stored, 11);
    });
  });

  await t.step("run: a task that emits past TASK_MAX_EVENTS fails naming it; its channel holds that many", async () => {
    const store = await open();
    await withRunner(store, { taskEvents: 30 }, async (runner) => {
      const task = await runner.submit({ kind: "flood" });
      const done = await final(store, task.task_id);
      assertEquals(done.status, "failed");
      assertMatch(done.error!, /30 events.*TASK_MAX_EVENTS/);
      const kinds = (await store.events.range(`task:${task.task_id}`, 0)).map((e) => e.kind);
      assertEquals([kinds.length, kinds.at(-1)], [30, "failed"], "its final event included");
    });
  });

  await t.step("run: a tree that spawns past TASK_MAX_TREE_TASKS fails naming it", async () => {
    const store = await open();
    await withRunner(store, { treeTasks: 5 }, async (runner) => {
      const task = await runner.submit({ kind: "sprawl" });
      const done = await final(store, task.task_id);
      assertEquals(done.status, "failed");
      assertMatch(done.error!, /5 tasks.*TASK_MAX_TREE_TASKS/);
      assertEquals((await store.tasks.children(task.task_id)).length, 4);
    });
  });

  await t.step("run: a tree whose tasks together emit past TASK_MAX_TREE_EVENTS fails naming it", async () => {
    const store = await open();
    await withRunner(store, { treeEvents: 40 }, async (runner) => {
      const task = await runner.submit({ kind: "sprawl" });
      const done = await final(store, task.task_id);
      assertMatch(done.error!, /40 events.*TASK_MAX_TREE_EVENTS/);
    });
  });

  await t.step("quota: live tasks; over it a TaskQuotaError naming TENANT_MAX_LIVE_TASKS, until one ends", async () => {
    const store = await open();
    await withRunner(store, { liveTasks: 3 }, async (runner) => {
      const a = await runner.submit({ kind: "demo", input: { steps: 0, ask: "?" } });
      await runner.submit({ kind: "demo", input: { steps: 0, ask: "?" } });
      const over = await refused(
        () => runner.submit({ kind: "demo", input: { steps: 0, children: 1, ask: "?" } }),
        TaskQuotaError,
      );
      assertMatch(over.message, /2 unfinished tasks.*2 more.*at most 3.*TENANT_MAX_LIVE_TASKS/);
      assertEquals(over.retryAfterSeconds, 1);
      assertEquals((await store.tasks.usage()).stored, 2, "nothing stored for the refused request");
      await runner.cancel(a.task_id, true);
      await runner.submit({ kind: "demo", input: { steps: 0, children: 1, ask: "?" } });
    });
  });

  await t.step("quota: stored tasks and stored events; deleting finished tasks gives them back", async () => {
    const store = await open();
    await withRunner(store, { storedTasks: 2, storedEvents: 50 }, async (runner) => {
      const first = await runner.submit({ kind: "demo", input: { steps: 0, tokens: Array(40).fill("t") } });
      await final(store, first.task_id);
      const events = await refused(
        () => runner.submit({ kind: "demo", input: { steps: 0, tokens: Array(20).fill("t") } }),
        TaskQuotaError,
      );
      assertMatch(events.message, /41 events.*21 more.*at most 50.*TENANT_MAX_STORED_EVENTS/);
      const second = await runner.submit({ kind: "demo", input: { steps: 0 } });
      await final(store, second.task_id);
      const tasks = await refused(() => runner.submit({ kind: "demo", input: { steps: 0 } }), TaskQuotaError);
      assertMatch(tasks.message, /2 tasks.*at most 2.*TENANT_MAX_STORED_TASKS.*DELETE/);
      await runner.remove(first.task_id);
      await runner.submit({ kind: "demo", input: { steps: 0, tokens: Array(20).fill("t") } });
    });
  });

  await t.step("quota: each tenant has its own", async () => {
    const store = await open();
    const runners = ["a", "b"].map((tenant) =>
      createTaskRunner({
        store: store.forTenant(tenant),
        definitions: [demoTask],
        limits: { ...DEFAULT_TASK_LIMITS, liveTasks: 1 },
        log: () => {},
      })
    );
    try {
      await runners[0].submit({ kind: "demo", input: { ask: "?" } });
      await refused(() => runners[0].submit({ kind: "demo", input: { ask: "?" } }), TaskQuotaError);
      const b = await runners[1].submit({ kind: "demo", input: { ask: "?" } });
      assert(b.task_id);
    } finally {
      await Promise.all(runners.map((r) => r.close()));
      await store.close();
    }
  });
}

Deno.test("task limits and quotas: memory store", (t) => suite(t, () => Promise.resolve(createMemoryStore())));

Deno.test("task limits and quotas: Redis (real redis-server)", { ignore: missingTools("redis-server") }, async (t) => {
  await using redis = await startRedis();
  await suite(t, () => openStore({ url: redis.url, prefix: `limits-${crypto.randomUUID()}:` }));
});
