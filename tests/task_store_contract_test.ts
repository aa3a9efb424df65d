import { assert, assertEquals } from "../testing/assert.ts";
import { DEFAULT_LANE, type Job, openStore, type StoredEvent } from "../lib/store/mod.ts";
import type { RedisCluster } from "../testing/redis_cluster.ts";
import { masterPorts, type OpenStore, task, testOnEveryStore } from "../testing/store_backends.ts";
import { sleep } from "../lib/time/mod.ts";
import { CLUSTER_PARTITIONS, FIRST_CLUSTER_PARTITIONS, partitionTags, TaskLayout } from "../lib/store/tasks/layout.ts";
import { until } from "../testing/until.ts";

const kinds = (events: StoredEvent[]) => events.map((e) => e.kind);

/** Collects what a follower yields until `count` events arrived. */
async function take(iterable: AsyncIterable<StoredEvent>, count: number, controller: AbortController) {
  const out: StoredEvent[] = [];
  if (count === 0) return out;
  for await (const event of iterable) {
    out.push(event);
    if (out.length === count) break;
  }
  controller.abort();
  return out;
}

/** The `tasks` and `events` ports' behaviour on every backend. */
async function contract(t: Deno.TestContext, open: OpenStore) {
  let n = 0;
  const fresh = async () => await open(`tasks-${crypto.randomUUID()}-${n++}:`);

  await t.step("tasks: create, get, duplicate ids and unknown parents refused", async () => {
    const store = await fresh();
    assertEquals(await store.tasks.create(task("a")), true);
    assertEquals(await store.tasks.create(task("a")), false);
    assertEquals(await store.tasks.create(task("a", { session_id: "another-session" })), false, "whatever its session");
    assertEquals(await store.tasks.create(task("b", { parent_id: "nope", spawn_key: "k" })), false);
    const a = await store.tasks.get("a");
    assertEquals(
      [a?.task_id, a?.kind, a?.session_id, a?.status, a?.metadata, a?.input, a?.updates],
      ["a", "demo", "s1", "in_progress", { message: "task a" }, { steps: 1, tokens: [] }, []],
    );
    assertEquals(await store.tasks.get("b"), undefined);
    assertEquals(a?.trace, undefined);
    const trace = {
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      tracestate: "congo=t61rcWkgMzE",
    };
    await store.tasks.create({ ...task("c"), trace });
    assertEquals((await store.tasks.get("c"))?.trace, trace, "the trace context is kept with the task");
    await store.close();
  });

  await t.step(
    "tasks: a root created with a lane is queued in the same step; a refused create queues nothing",
    async () => {
      const store = await fresh();
      assertEquals(await store.tasks.create({ ...task("a"), lane: "pipelines" }), true);
      assertEquals(await store.tasks.create({ ...task("a"), lane: "pipelines" }), false);
      assertEquals(await store.tasks.create(task("b")), true);
      assertEquals(
        await store.tasks.get("a").then((a) => a && "lane" in a),
        false,
        "the lane is not a field of the task",
      );
      const [job] = await store.queue.take("r", 60_000, ["tasks", "pipelines"]);
      assertEquals([job?.taskId, job?.lane, job?.attempt, job?.reclaimed], ["a", "pipelines", 1, false]);
      assertEquals(await store.queue.take("r", 60_000, ["tasks", "pipelines"]), [], "one job; none for b");
      await store.close();
    },
  );

  await t.step("tasks: a step sets fields, appends the update and emits on task, session and global", async () => {
    const store = await fresh();
    await store.tasks.create(task("a"));
    const update = { message: "step 1", update_type: "info" };
    assertEquals(await store.tasks.step("a", { update, event: { kind: "update", payload: { message: "step 1" } } }), {
      ok: true,
    });
    assertEquals(
      await store.tasks.step("a", {
        to: "done",
        result: { answer: "hi", list: [] },
        event: { kind: "done", payload: { result: { answer: "hi", list: [] } } },
      }),
      { ok: true },
    );
    const a = await store.tasks.get("a");
    assertEquals([a?.status, a?.result, a?.updates], ["done", { answer: "hi", list: [] }, [update]]);
    await store.tasks.create(task("b"));
    assertEquals(await store.tasks.step("b", { to: "done", input: { documents: 2 } }), { ok: true });
    assertEquals((await store.tasks.get("b"))?.input, { documents: 2 });
    const expected = [
      { id: 1, kind: "update", data: { task_id: "a", message: "step 1" } },
      { id: 2, kind: "done", data: { task_id: "a", result: { answer: "hi", list: [] } } },
    ];
    assertEquals(await store.events.range("task:a", 0), expected);
    assertEquals(await store.events.range("session:s1", 0), expected);
    assertEquals(await store.events.range("global", 0), expected);
    assertEquals(await store.events.range("task:a", 1), expected.slice(1));
    await store.close();
  });

  await t.step("tasks: nothing leaves a final state; `from` guards a transition", async () => {
    const store = await fresh();
    await store.tasks.create(task("a"));
    assertEquals(await store.tasks.step("a", { to: "done", from: ["input_required"] }), {
      ok: false,
      status: "in_progress",
    });
    assertEquals(await store.tasks.step("a", { to: "input_required", prompt: "name?" }), { ok: true });
    assertEquals((await store.tasks.get("a"))?.prompt, "name?");
    assertEquals(
      await store.tasks.step("a", { to: "in_progress", from: ["input_required"], prompt: null, answer: "x" }),
      {
        ok: true,
      },
    );
    const resumed = await store.tasks.get("a");
    assertEquals([resumed?.prompt, resumed?.answer], [undefined, "x"]);
    await store.tasks.step("a", { to: "failed", error: "boom", event: { kind: "failed", payload: { error: "boom" } } });
    for (const to of ["in_progress", "done", "cancelled"] as const) {
      assertEquals(await store.tasks.step("a", { to, event: { kind: to } }), { ok: false, status: "failed" });
    }
    assertEquals(await store.tasks.step("a", { event: { kind: "token", payload: { message: "late" } } }), {
      ok: false,
      status: "failed",
    });
    assertEquals(kinds(await store.events.range("task:a", 0)), ["failed"], "refused steps emit nothing");
    assertEquals(await store.tasks.step("missing", { to: "done" }), { ok: false });
    await store.close();
  });

  await t.step("tasks: a repeated step (same run, number not above the last) applies once", async () => {
    const store = await fresh();
    await store.tasks.create(task("a"));
    const update = (n: number, run = "r1") => ({
      update: { message: `step ${n}`, update_type: "info" },
      event: { kind: "update", payload: { message: `step ${n}` } },
      id: { run, n },
    });
    for (const n of [1, 1, 2, 1, 2, 3]) assertEquals(await store.tasks.step("a", update(n)), { ok: true });
    const done = {
      to: "done" as const,
      event: { kind: "done", payload: { result: {} } },
      result: {},
      id: { run: "r1", n: 4 },
    };
    assertEquals(await store.tasks.step("a", done), { ok: true });
    assertEquals(await store.tasks.step("a", done), { ok: true }, "the repeat of the final step is not refused");
    assertEquals(await store.tasks.step("a", update(5)), { ok: false, status: "done" }, "a new step is refused");
    assertEquals((await store.tasks.get("a"))?.updates.map((u) => u.message), ["step 1", "step 2", "step 3"]);
    assertEquals(kinds(await store.events.range("task:a", 0)), ["update", "update", "update", "done"]);
    // Another run (the next attempt) starts its own count; steps without an id always apply.
    await store.tasks.create(task("b"));
    assertEquals(await store.tasks.step("b", update(1, "r1")), { ok: true });
    assertEquals(await store.tasks.step("b", update(1, "r2")), { ok: true });
    assertEquals(await store.tasks.step("b", { update: { message: "x", update_type: "info" } }), { ok: true });
    assertEquals(await store.tasks.step("b", { update: { message: "x", update_type: "info" } }), { ok: true });
    assertEquals((await store.tasks.get("b"))?.updates.map((u) => u.message), ["step 1", "step 1", "x", "x"]);
    await store.close();
  });

  await t.step("tasks: children in spawn order, subtask events on the parent's channel", async () => {
    const store = await fresh();
    await store.tasks.create(task("p"));
    for (const [i, id] of ["c2", "c0", "c1"].entries()) {
      await store.tasks.create(task(id, { parent_id: "p", spawn_key: `child-${i}` }));
    }
    await store.tasks.step("c0", {
      to: "done",
      result: { answer: "0" },
      event: { kind: "done", payload: { result: { answer: "0" } } },
    });
    await store.tasks.step("c1", { to: "input_required", event: { kind: "input_required", payload: { prompt: "?" } } });
    await store.tasks.step("c2", { event: { kind: "token", payload: { message: "x" } } });
    const children = await store.tasks.children("p");
    assertEquals(children.map((c) => [c.task_id, c.spawn_key, c.status]), [
      ["c2", "child-0", "in_progress"],
      ["c0", "child-1", "done"],
      ["c1", "child-2", "input_required"],
    ]);
    assertEquals(children[1].result, { answer: "0" });
    assertEquals((await store.events.range("task:p", 0)).map((e) => [e.id, e.kind, e.data]), [
      [1, "subtask_spawned", { task_id: "p", subtask_id: "c2", spawn_key: "child-0" }],
      [2, "subtask_spawned", { task_id: "p", subtask_id: "c0", spawn_key: "child-1" }],
      [3, "subtask_spawned", { task_id: "p", subtask_id: "c1", spawn_key: "child-2" }],
      [4, "subtask_done", { task_id: "p", subtask_id: "c0", spawn_key: "child-1", result: { answer: "0" } }],
      [5, "subtask_input_required", { task_id: "p", subtask_id: "c1", spawn_key: "child-2", prompt: "?" }],
    ]);
    assertEquals(await store.tasks.children("c0"), []);
    await store.close();
  });

  await t.step("tasks: cascade cancel of a 3-level tree counts only the tasks it moved", async () => {
    const store = await fresh();
    await store.tasks.create(task("root"));
    await store.tasks.create(task("a", { parent_id: "root", spawn_key: "child-0" }));
    await store.tasks.create(task("b", { parent_id: "root", spawn_key: "child-1" }));
    await store.tasks.create(task("a0", { parent_id: "a", spawn_key: "child-0" }));
    await store.tasks.create(task("a1", { parent_id: "a", spawn_key: "child-1" }));
    await store.tasks.step("b", { to: "done", event: { kind: "done", payload: { result: {} } } });
    await store.tasks.step("a1", { to: "failed", error: "x", event: { kind: "failed", payload: { error: "x" } } });
    assertEquals(await store.tasks.cancel("a", false), { found: true, cancelled: ["a"] });
    assertEquals(await store.tasks.cancel("root", true), { found: true, cancelled: ["root", "a0"] });
    assertEquals(await store.tasks.cancel("root", true), { found: true, cancelled: [] });
    assertEquals(await store.tasks.cancel("nope", true), { found: false, cancelled: [] });
    assertEquals(kinds(await store.events.range("task:a0", 0)), ["cancelled"]);
    const statuses = await Promise.all(
      ["root", "a", "b", "a0", "a1"].map(async (id) => (await store.tasks.get(id))?.status),
    );
    assertEquals(statuses, ["cancelled", "cancelled", "done", "cancelled", "failed"]);
    await store.close();
  });

  await t.step("tasks: list filters by status and session, pages with a cursor, keeps the index current", async () => {
    const store = await fresh();
    for (let i = 0; i < 5; i++) await store.tasks.create(task(`t${i}`, { session_id: i < 3 ? "s1" : "s2" }));
    await store.tasks.step("t1", { to: "done" });
    await store.tasks.step("t4", { to: "done" });
    const first = await store.tasks.list({ limit: 2 });
    assertEquals([first.tasks.map((x) => x.task_id), first.total], [["t0", "t1"], 5]);
    assert(first.next_cursor !== undefined);
    const second = await store.tasks.list({ limit: 2, cursor: first.next_cursor });
    const third = await store.tasks.list({ limit: 2, cursor: second.next_cursor });
    assertEquals([second.tasks.map((x) => x.task_id), third.tasks.map((x) => x.task_id)], [["t2", "t3"], ["t4"]]);
    assertEquals(third.next_cursor, undefined);
    const done = await store.tasks.list({ status: "done", limit: 10 });
    assertEquals([done.tasks.map((x) => [x.task_id, x.status]), done.total], [[["t1", "done"], ["t4", "done"]], 2]);
    assertEquals((await store.tasks.list({ status: "in_progress", limit: 10 })).total, 3);
    const s1 = await store.tasks.list({ session_id: "s1", status: "in_progress", limit: 10 });
    assertEquals(s1.tasks.map((x) => x.task_id), ["t0", "t2"]);
    assertEquals((await store.tasks.list({ session_id: "s2", limit: 10 })).total, 2);
    assertEquals((await store.tasks.list({ session_id: "none", limit: 10 })).total, 0);
    // Each row carries the task's times (GET /tasks shows them; the console says "3 s ago").
    for (const row of [...first.tasks, ...second.tasks, ...third.tasks]) {
      const got = await store.tasks.get(row.task_id);
      assertEquals([row.created_at, row.updated_at], [got?.created_at, got?.updated_at], row.task_id);
      assert(Date.parse(row.created_at) <= Date.parse(row.updated_at), `${row.created_at} ${row.updated_at}`);
    }
    await sleep(5);
    await store.tasks.step("t0", { update: { message: "later", update_type: "info" } });
    const t0 = (await store.tasks.list({ limit: 1 })).tasks[0];
    assertEquals(t0.created_at, first.tasks[0].created_at);
    assert(Date.parse(t0.updated_at) > Date.parse(first.tasks[0].updated_at), "a step moves updated_at on");
    await store.close();
  });

  await t.step("tasks: list newest first, roots only, with each task's parent and children count", async () => {
    const store = await fresh();
    await store.tasks.create(task("r0", { session_id: "s1" }));
    await store.tasks.create(task("r0-a", { session_id: "s1", parent_id: "r0", spawn_key: "child-0" }));
    await store.tasks.create(task("r0-b", { session_id: "s1", parent_id: "r0", spawn_key: "child-1" }));
    await store.tasks.create(task("r1", { session_id: "s2" }));
    await store.tasks.create(task("r2", { session_id: "s1" }));
    await store.tasks.create(task("r2-a", { session_id: "s1", parent_id: "r2", spawn_key: "child-0" }));
    const ids = (page: { tasks: readonly { task_id: string }[] }) => page.tasks.map((x) => x.task_id);
    const desc = await store.tasks.list({ order: "desc", limit: 4 });
    assertEquals([ids(desc), desc.total], [["r2-a", "r2", "r1", "r0-b"], 6]);
    assertEquals(ids(await store.tasks.list({ order: "desc", limit: 4, cursor: desc.next_cursor })), ["r0-a", "r0"]);
    const roots = await store.tasks.list({ roots: true, order: "desc", limit: 2 });
    assertEquals([ids(roots), roots.total], [["r2", "r1"], 3]);
    assertEquals(roots.tasks.map((x) => [x.children, x.parent_id]), [[1, undefined], [0, undefined]]);
    const rest = await store.tasks.list({ roots: true, order: "desc", limit: 2, cursor: roots.next_cursor });
    assertEquals([ids(rest), rest.tasks[0].children, rest.next_cursor], [["r0"], 2, undefined]);
    const kids = await store.tasks.list({ session_id: "s1", limit: 10 });
    assertEquals(kids.tasks.map((x) => [x.task_id, x.parent_id ?? "", x.children]), [
      ["r0", "", 2],
      ["r0-a", "r0", 0],
      ["r0-b", "r0", 0],
      ["r2", "", 1],
      ["r2-a", "r2", 0],
    ]);
    // The roots' status and session indexes follow a status change and a removal.
    await store.tasks.step("r0", { to: "done" });
    await store.tasks.step("r0-a", { to: "done" });
    assertEquals(ids(await store.tasks.list({ roots: true, status: "done", limit: 10 })), ["r0"]);
    assertEquals(ids(await store.tasks.list({ roots: true, session_id: "s1", status: "in_progress", limit: 10 })), [
      "r2",
    ]);
    await store.tasks.remove("r2-a");
    assertEquals((await store.tasks.list({ roots: true, session_id: "s1", limit: 10 })).tasks.map((x) => x.children), [
      2,
      0,
    ]);
    await store.tasks.remove("r0");
    const left = await store.tasks.list({ roots: true, limit: 10 });
    assertEquals([ids(left), left.total], [["r1", "r2"], 2]);
    assertEquals((await store.tasks.list({ roots: true, status: "done", limit: 10 })).total, 0);
    await store.close();
  });

  await t.step("tasks: remove deletes the tree, its task channels and index entries", async () => {
    const store = await fresh();
    await store.tasks.create(task("root"));
    await store.tasks.create(task("a", { parent_id: "root", spawn_key: "child-0" }));
    await store.tasks.create(task("a0", { parent_id: "a", spawn_key: "child-0" }));
    await store.tasks.create(task("b", { parent_id: "root", spawn_key: "child-1" }));
    await store.tasks.step("a0", { event: { kind: "update", payload: { message: "m" } } });
    assertEquals((await store.tasks.remove("a")).sort(), ["a", "a0"]);
    assertEquals([await store.tasks.get("a"), await store.tasks.get("a0")], [undefined, undefined]);
    assertEquals(await store.events.range("task:a0", 0), []);
    assertEquals((await store.tasks.children("root")).map((c) => c.task_id), ["b"]);
    assertEquals((await store.tasks.list({ limit: 10 })).tasks.map((x) => x.task_id), ["root", "b"]);
    assertEquals(await store.tasks.remove("a"), []);
    await store.close();
  });

  await t.step(
    "tasks: usage counts live and stored tasks and their own channels' events; remove and retention give them back",
    async () => {
      const store = await fresh();
      assertEquals(await store.tasks.usage(), { live: 0, stored: 0, events: 0 });
      await store.tasks.create(task("root"));
      await store.tasks.create(task("kid", { parent_id: "root", spawn_key: "child-0" })); // subtask_spawned on root's
      await store.tasks.step("kid", { event: { kind: "token", payload: { message: "a" } } });
      await store.tasks.step("kid", {
        to: "input_required",
        event: { kind: "input_required", payload: { prompt: "?" } },
      });
      assertEquals(
        await store.tasks.usage(),
        { live: 2, stored: 2, events: 4 },
        "kid's two, and two subtask_ on root's",
      );
      await store.tasks.create(task("other", { session_id: "s2" }));
      await store.tasks.step("other", { to: "done", event: { kind: "done", payload: { result: {} } } });
      assertEquals(
        await store.tasks.usage(),
        { live: 2, stored: 3, events: 5 },
        "session and global copies not counted",
      );
      assertEquals((await store.tasks.cancel("root", true)).cancelled.length, 2);
      assertEquals(await store.tasks.usage(), { live: 0, stored: 3, events: 7 });
      await store.tasks.remove("root");
      assertEquals(await store.tasks.usage(), { live: 0, stored: 1, events: 1 });
      store.tasks.retain(100);
      await store.tasks.create(task("brief"));
      await store.tasks.step("brief", { to: "done", event: { kind: "done", payload: { result: {} } } });
      assertEquals(await store.tasks.usage(), { live: 0, stored: 2, events: 2 });
      for (let i = 0; i < 250 && (await store.tasks.usage()).stored > 1; i++) await sleep(20);
      assertEquals(await store.tasks.usage(), { live: 0, stored: 1, events: 1 }, "a swept tree gives its events back");
      await store.close();
    },
  );

  await t.step(
    "tasks: retention removes a finished root's tree after it; running and unfinished roots stay",
    async () => {
      const store = await fresh();
      store.tasks.retain(300);
      await store.tasks.create(task("old"));
      await store.tasks.create(task("old-child", { parent_id: "old", spawn_key: "child-0" }));
      await store.tasks.create(task("running"));
      await store.tasks.step("old", { to: "done", event: { kind: "done", payload: { result: {} } } });
      await store.tasks.step("old-child", { to: "done" });
      assertEquals((await store.tasks.list({ limit: 10 })).total, 3, "kept until the retention has passed");
      await sleep(450);
      const page = await store.tasks.list({ limit: 10 });
      assertEquals([page.total, page.tasks.map((x) => x.task_id)], [1, ["running"]]);
      assertEquals([await store.tasks.get("old"), await store.tasks.get("old-child")], [undefined, undefined]);
      assertEquals(await store.events.range("task:old", 0), []);
      store.tasks.retain(0);
      await store.tasks.step("running", { to: "failed" });
      await sleep(400);
      assertEquals((await store.tasks.list({ limit: 10 })).total, 1, "retention 0 keeps them");
      await store.close();
    },
  );

  await t.step(
    "events: with a retention, a session's channel and the global one go that long after their last event",
    async () => {
      const store = await fresh();
      store.tasks.retain(1_000);
      await store.tasks.create(task("a", { session_id: "quiet" }));
      await store.tasks.step("a", { to: "done", event: { kind: "done", payload: { result: {} } } });
      assertEquals(kinds(await store.events.range("session:quiet", 0)), ["done"]);
      await store.tasks.create(task("b", { session_id: "busy" }));
      await sleep(600);
      await store.tasks.step("b", { event: { kind: "update", payload: { message: "still here" } } });
      const gone = async (channel: string) => {
        for (let i = 0; i < 250; i++) {
          await store.tasks.list({ limit: 1 }); // the memory store sweeps on its own calls
          if ((await store.events.range(channel, 0)).length === 0) return;
          await sleep(20);
        }
        throw new Error(`${channel} is still there 5 s after its retention`);
      };
      await gone("session:quiet");
      assertEquals(kinds(await store.events.range("session:busy", 0)), ["update"], "its last event is 600 ms younger");
      assertEquals(kinds(await store.events.range("global", 0)), ["done", "update"]);
      await gone("global");
      await store.close();
    },
  );

  await t.step("events: a shared channel switched off gets nothing; the task's channel gets everything", async () => {
    const store = await fresh();
    store.tasks.shareEvents({ session: true, global: false });
    await store.tasks.create(task("a", { session_id: "s" }));
    await store.tasks.create(task("a1", { parent_id: "a", spawn_key: "k", session_id: "s" }));
    await store.tasks.step("a1", { to: "done", event: { kind: "done", payload: { result: 1 } } });
    await store.tasks.cancel("a", true);
    assertEquals(kinds(await store.events.range("task:a", 0)), ["subtask_spawned", "subtask_done", "cancelled"]);
    assertEquals(kinds(await store.events.range("session:s", 0)), ["done", "cancelled"]);
    assertEquals(await store.events.range("global", 0), []);
    store.tasks.shareEvents({ session: false, global: true });
    await store.tasks.create(task("b", { session_id: "s" }));
    await store.tasks.step("b", { event: { kind: "update", payload: { message: "m" } } });
    assertEquals(kinds(await store.events.range("task:b", 0)), ["update"]);
    assertEquals(kinds(await store.events.range("session:s", 0)), ["done", "cancelled"]);
    assertEquals(kinds(await store.events.range("global", 0)), ["update"]);
    await store.close();
  });

  await t.step(
    "events: the hooks channel, while on, gets the ends and questions of every task, nothing else",
    async () => {
      const store = await fresh();
      await store.tasks.create(task("before", { session_id: "s" }));
      await store.tasks.step("before", { to: "done", event: { kind: "done", payload: { result: {} } } });
      assertEquals(await store.events.range("hooks", 0), [], "off by default");
      store.tasks.shareEvents({ session: false, global: false, hooks: true });
      await store.tasks.create(task("a", { session_id: "s" }));
      await store.tasks.create(task("a1", { parent_id: "a", spawn_key: "k", session_id: "s" }));
      await store.tasks.step("a1", { event: { kind: "update", payload: { message: "m" } } });
      await store.tasks.step("a1", {
        to: "input_required",
        prompt: "?",
        event: { kind: "input_required", payload: { prompt: "?" } },
      });
      await store.tasks.step("a1", {
        to: "done",
        from: ["input_required"],
        event: { kind: "done", payload: { result: { n: 1 } } },
      });
      await store.tasks.cancel("a", true);
      const hooks = await store.events.range("hooks", 0);
      assertEquals(hooks.map((e) => [e.kind, e.data.task_id]), [["input_required", "a1"], ["done", "a1"], [
        "cancelled",
        "a",
      ]]);
      assertEquals(hooks[1].data.result, { n: 1 });
      await store.close();
    },
  );

  await t.step("queue: the backlog counts each lane's jobs not taken yet, and when the oldest was queued", async () => {
    const store = await fresh();
    const empty = [{ lane: "tasks", waiting: 0 }, { lane: "pipelines", waiting: 0 }];
    assertEquals(await store.queue.backlog(["tasks", "pipelines"]), empty, "lanes never used");
    const before = Date.now();
    for (const id of ["t1", "t2", "t3"]) await store.queue.push(id);
    await store.queue.push("p1", 1, "pipelines");
    const after = Date.now();
    const [taken] = await store.queue.take("a", 60_000);
    const [tasks, pipelines] = await store.queue.backlog(["tasks", "pipelines"]);
    assertEquals([tasks.lane, tasks.waiting, pipelines.lane, pipelines.waiting], ["tasks", 2, "pipelines", 1]);
    for (const at of [tasks.oldestAt, pipelines.oldestAt]) {
      assert(at !== undefined && at >= before - 5 && at <= after + 5, `queued within the test: ${at}`);
    }
    await store.queue.ack(taken!.id);
    for (let left = 2; left > 0; left--) await store.queue.ack((await store.queue.take("a", 60_000))[0].id);
    assertEquals((await store.queue.backlog(["tasks"]))[0], { lane: "tasks", waiting: 0 }, "all taken");
    await store.close();
  });

  await t.step(
    "queue: jobs in order (per partition), one consumer each; ack removes; an expired lease is reclaimed",
    async () => {
      const store = await fresh();
      assertEquals(await store.queue.take("a", 60_000), []);
      await store.queue.push("t1");
      await store.queue.push("t2", 3);
      let j1: Job | undefined;
      let j2: Job | undefined;
      // A partitioned queue (Redis Cluster) keeps no order between partitions: each job once, either order.
      const holder = new Map<string, string>();
      for (const consumer of ["a", "b"]) {
        const [job] = await store.queue.take(consumer, 60_000);
        holder.set(job!.id, consumer);
        if (job!.taskId === "t1") j1 = job;
        else j2 = job;
      }
      assertEquals([j1?.taskId, j1?.attempt, j1?.reclaimed], ["t1", 1, false]);
      assertEquals([j2?.taskId, j2?.attempt, j2?.reclaimed], ["t2", 3, false]);
      if (store.kind !== "redis-cluster") assertEquals(holder.get(j1!.id), "a", "one queue: first in, first out");
      assertEquals(await store.queue.take("c", 60_000), [], "both are leased");
      await store.queue.ack(j1!.id);
      await sleep(250);
      await store.queue.renew(holder.get(j2!.id)!, j2!.id);
      assertEquals(await store.queue.take("c", 200), [], "a renewed lease is not reclaimed");
      await sleep(250);
      const [reclaimed] = await store.queue.take("c", 200);
      assertEquals([reclaimed?.id, reclaimed?.taskId, reclaimed?.reclaimed], [j2!.id, "t2", true]);
      await store.queue.ack(reclaimed!.id);
      assertEquals(await store.queue.take("c", 0), [], "acknowledged jobs are gone");
      await store.close();
    },
  );

  await t.step("queue: a released job is reclaimable at once; requeue replaces it with the next attempt", async () => {
    const store = await fresh();
    await store.queue.push("t1");
    const [job] = await store.queue.take("a", 60_000);
    await store.queue.release("a", job!.id);
    const [next] = await store.queue.take("b", 60_000);
    assertEquals([next?.taskId, next?.reclaimed], ["t1", true]);
    await store.queue.requeue(next!.id, "t1", 2);
    await store.queue.requeue(next!.id, "t1", 2); // repeated after a lost reply: queues nothing more
    const [again] = await store.queue.take("c", 60_000);
    assertEquals([again?.taskId, again?.attempt, again?.reclaimed], ["t1", 2, false]);
    assertEquals(await store.queue.take("d", 60_000), [], "the requeued job replaced the old one");
    await store.close();
  });

  await t.step(
    "queue: a job leased to the taker that it does not hold (a take whose reply was lost) is taken again at once",
    async () => {
      const store = await fresh();
      await store.queue.push("t1", 1, "pipelines");
      await store.queue.push("t2");
      const [lost] = await store.queue.take("a", 60_000, ["pipelines"]); // its answer never reached the runner
      const [held] = await store.queue.take("a", 60_000, ["tasks"], []);
      assertEquals([lost?.taskId, held?.taskId], ["t1", "t2"], "nothing to reclaim in the lane asked");
      assertEquals(
        await store.queue.take("b", 60_000, ["pipelines"], []),
        [],
        "another runner waits out the lease",
      );
      const [again] = await store.queue.take("a", 60_000, ["tasks", "pipelines"], [held!.id]);
      assertEquals([again?.id, again?.taskId, again?.attempt, again?.reclaimed, again?.retaken], [
        lost!.id,
        "t1",
        1,
        false,
        true,
      ]);
      assertEquals(await store.queue.take("a", 60_000, ["tasks", "pipelines"], [held!.id, again!.id]), []);
      for (const job of [again!, held!]) await store.queue.ack(job.id);
      await store.close();
    },
  );

  await t.step(
    "queue: a take hands out up to each lane's room at once; jobs whose replies were lost come again",
    async () => {
      const store = await fresh();
      for (const id of ["t1", "t2", "t3"]) await store.queue.push(id);
      for (const id of ["p1", "p2"]) await store.queue.push(id, 1, "pipelines");
      const lanes = ["tasks", "pipelines"];
      /** Takes until none is left (a cluster's take asks one partition), none over its lane's room. */
      const takeAll = async (consumer: string, held: Job[], rooms: number[]) => {
        const taken: Job[] = [];
        for (;;) {
          const jobs = await store.queue.take(consumer, 60_000, lanes, [...held, ...taken].map((j) => j.id), rooms);
          if (jobs.length === 0) return taken;
          for (const [i, lane] of lanes.entries()) {
            assert(jobs.filter((j) => j.lane === lane).length <= rooms[i], `at most ${rooms[i]} of ${lane} at once`);
          }
          taken.push(...jobs);
        }
      };
      const lost = await takeAll("a", [], [2, 5]); // their replies never reached the runner
      assertEquals(lost.map((j) => j.taskId).sort(), ["p1", "p2", "t1", "t2", "t3"]);
      if (store.kind !== "redis-cluster") {
        assertEquals(lost.map((j) => j.taskId), ["t1", "t2", "p1", "p2", "t3"], "one queue: in order, lane by lane");
      }
      assertEquals(await takeAll("b", [], [5, 5]), [], "leased to a");
      const kept = lost.filter((j) => j.taskId === "t1");
      const again = await takeAll("a", kept, [5, 5]);
      assertEquals(again.map((j) => [j.taskId, j.retaken, j.reclaimed]).sort(), [
        ["p1", true, false],
        ["p2", true, false],
        ["t2", true, false],
        ["t3", true, false],
      ]);
      for (const job of [...kept, ...again]) await store.queue.ack(job.id);
      assertEquals(await store.queue.take("c", 0, lanes, [], [5, 5]), [], "all acknowledged");
      await store.close();
    },
  );

  await t.step("queue: each lane is a queue of its own; take tries the lanes given, in order", async () => {
    const store = await fresh();
    await store.queue.push("t1");
    await store.queue.push("p1", 1, "pipelines");
    await store.queue.push("k1", 1, "kind:answer");
    assertEquals(await store.queue.take("a", 60_000, ["other"]), []);
    const [p] = await store.queue.take("a", 60_000, ["pipelines", "tasks"]);
    assertEquals([p?.taskId, p?.lane], ["p1", "pipelines"]);
    const [t1] = await store.queue.take("a", 60_000, ["pipelines", "tasks"]);
    assertEquals([t1?.taskId, t1?.lane], ["t1", "tasks"]);
    const [k] = await store.queue.take("a", 60_000, ["kind:answer"]);
    assertEquals([k?.taskId, k?.lane], ["k1", "kind:answer"]);
    // A job's renew, release, requeue and ack act on its own lane.
    await store.queue.release("a", p!.id);
    const [back] = await store.queue.take("b", 60_000, ["tasks", "pipelines"]);
    assertEquals([back?.taskId, back?.lane, back?.reclaimed], ["p1", "pipelines", true]);
    await store.queue.requeue(back!.id, "p1", 2);
    assertEquals(await store.queue.take("c", 60_000, ["tasks"]), [], "the next attempt stays in its lane");
    const [next] = await store.queue.take("c", 60_000, ["pipelines"]);
    assertEquals([next?.taskId, next?.attempt, next?.lane], ["p1", 2, "pipelines"]);
    await store.queue.renew("c", next!.id);
    for (const job of [next!, t1!, k!]) await store.queue.ack(job.id);
    assertEquals(await store.queue.take("d", 0, ["tasks", "pipelines", "kind:answer"]), [], "all acknowledged");
    await store.close();
  });

  await t.step("events: ids count per channel from 1; range after an id with a limit", async () => {
    const store = await fresh();
    assertEquals(await store.events.append("x", "token", { task_id: "t", message: "a" }), 1);
    assertEquals(await store.events.append("y", "token", { task_id: "t", message: "b" }), 1);
    assertEquals(await store.events.append("x", "token", { task_id: "t", message: "c" }), 2);
    assertEquals(await store.events.append("x", "done", { task_id: "t", result: {} }), 3);
    assertEquals((await store.events.range("x", 1, 1)).map((e) => e.id), [2]);
    assertEquals([await store.events.last("x"), await store.events.last("y"), await store.events.last("z")], [3, 1, 0]);
    for (let i = 0; i < 300; i++) await store.events.append("capped", "token", { task_id: "t", i }, 100);
    const kept = await store.events.range("capped", 0);
    assert(kept.length >= 100 && kept.length < 300, `about 100 kept, not ${kept.length}`);
    assertEquals(kept[kept.length - 1].id, 300);
    assertEquals((await store.events.range("x", 3)).length, 0);
    assertEquals(await store.events.range("nothing", 0), []);
    await store.close();
  });

  await t.step(
    "events: follow replays history then live events, no gap or duplicate under a fast producer",
    async () => {
      const store = await fresh();
      for (let i = 0; i < 50; i++) await store.events.append("c", "token", { task_id: "t", i });
      const controller = new AbortController();
      const followed = take(store.events.follow("c", 10, controller.signal), 290, controller);
      const late = new AbortController();
      let lateFollow: Promise<StoredEvent[]> | undefined;
      for (let i = 50; i < 300; i++) {
        await store.events.append("c", "token", { task_id: "t", i });
        if (i === 120) lateFollow = take(store.events.follow("c", 0, late.signal), 300, late);
      }
      const ids = (await followed).map((e) => e.id);
      assertEquals(ids, Array.from({ length: 290 }, (_, i) => i + 11));
      assertEquals((await lateFollow!).map((e) => e.id), Array.from({ length: 300 }, (_, i) => i + 1));
      await store.close();
    },
  );

  await t.step("events: followBatches gives non-empty batches covering every id once, in order", async () => {
    const store = await fresh();
    for (let i = 0; i < 20; i++) await store.events.append("b", "token", { task_id: "t", i });
    const controller = new AbortController();
    const seen: number[] = [];
    let batches = 0;
    const reading = (async () => {
      for await (const batch of store.events.followBatches("b", 5, controller.signal)) {
        assert(batch.length > 0, "no empty batch");
        batches++;
        seen.push(...batch.map((e) => e.id));
        if (seen.length === 195) break;
      }
      controller.abort();
    })();
    for (let i = 20; i < 200; i++) await store.events.append("b", "token", { task_id: "t", i });
    await reading;
    assertEquals(seen, Array.from({ length: 195 }, (_, i) => i + 6));
    assert(batches <= 195, `${batches} batches`);
    await store.close();
  });

  await t.step(
    "events: watch tells each watcher its history then live batches, once each, the live ones shared",
    async () => {
      const store = await fresh();
      for (let i = 0; i < 20; i++) await store.events.append("w", "token", { task_id: "t", i });
      const controller = new AbortController();
      const watchers = [0, 12].map((after) => {
        const seen = { ids: [] as number[], batches: [] as (readonly StoredEvent[])[], ended: false };
        store.events.watch("w", after, controller.signal, {
          take(batch) {
            assert(batch.length > 0, "no empty batch");
            seen.batches.push(batch);
            for (const event of batch) seen.ids.push(event.id);
          },
          end: () => seen.ended = true,
        });
        return seen;
      });
      await until("the history told", () => watchers.every((w) => w.ids.at(-1) === 20));
      for (let i = 20; i < 120; i++) await store.events.append("w", "token", { task_id: "t", i });
      await until("every live event told", () => watchers.every((w) => w.ids.at(-1) === 120));
      assertEquals(watchers[0].ids, Array.from({ length: 120 }, (_, i) => i + 1));
      assertEquals(watchers[1].ids, Array.from({ length: 108 }, (_, i) => i + 13));
      assert(
        watchers[0].batches.at(-1) === watchers[1].batches.at(-1),
        "watchers of a channel get the same batch, not a copy each",
      );
      controller.abort();
      await store.events.append("w", "token", { task_id: "t", i: 120 });
      await store.events.append("w", "token", { task_id: "t", i: 121 });
      await store.events.range("w", 0); // a round trip: a live event would have come by now
      assertEquals(watchers.map((w) => [w.ids.at(-1), w.ended]), [[120, false], [120, false]], "aborted: told nothing");
      await store.close();
    },
  );

  await t.step("events: closing the store ends its watchers and followers, without an error", async () => {
    const store = await fresh();
    await store.events.append("z", "token", { task_id: "t", i: 0 });
    const controller = new AbortController();
    const watcher = { ids: [] as number[], ends: [] as unknown[] };
    store.events.watch("z", 0, controller.signal, {
      take: (batch) => watcher.ids.push(...batch.map((e) => e.id)),
      end: (error) => watcher.ends.push(error),
    });
    const follower = store.events.followBatches("z", 0, controller.signal)[Symbol.asyncIterator]();
    assertEquals((await follower.next()).value?.map((e: StoredEvent) => e.id), [1], "the follower's history");
    await until("the watcher told its history", () => watcher.ids.length === 1, 5_000);
    let followerDone: boolean | undefined;
    follower.next().then((r) => followerDone = r.done, () => followerDone = false);
    await store.close();
    await until(() => `the watcher ended (told ${JSON.stringify(watcher)})`, () => watcher.ends.length > 0, 5_000);
    assertEquals(watcher.ends, [undefined], "told its end once, with no error: the store was closed");
    await until("the follower ended", () => followerDone !== undefined, 5_000);
    assertEquals(followerDone, true);
    controller.abort();
  });

  await t.step("events: an aborted follower ends and releases its wait", async () => {
    const store = await fresh();
    const controller = new AbortController();
    const iterator = store.events.follow("quiet", 0, controller.signal)[Symbol.asyncIterator]();
    const next = iterator.next();
    setTimeout(() => controller.abort(), 100);
    assertEquals((await next).done, true);
    await store.close();
  });
}

testOnEveryStore("task store contract", contract, { cluster: clusterSteps });

/** The scripts (by hash) the cluster's masters have run. */
async function scriptsRun(cluster: RedisCluster): Promise<number> {
  const stats = await Promise.all(
    (await masterPorts(cluster)).map((port) => cluster.cli(port, "INFO", "commandstats")),
  );
  return stats.reduce((n, text) => n + Number(/^cmdstat_evalsha:calls=(\d+)/m.exec(text)?.[1] ?? 0), 0);
}

/** What only a cluster shows: how the data spreads over the masters. */
async function clusterSteps(t: Deno.TestContext, cluster: RedisCluster) {
  await t.step(
    "cluster: a step with its event is one script, its session's channel included; an outside channel costs one more",
    async () => {
      const store = await openStore({ url: cluster.url, prefix: `scripts-${crypto.randomUUID()}:` });
      store.tasks.shareEvents({ session: true, global: false });
      const home = store.tasks.newRootId("s-home"); // the service's ids: in the session's partition
      await store.tasks.create(task(home, { session_id: "s-home" }));
      await store.tasks.create(task("kid", { parent_id: home, spawn_key: "k", session_id: "s-away" }));
      const steps = async (id: string, n: number) => {
        const before = await scriptsRun(cluster);
        for (let i = 0; i < n; i++) {
          await store.tasks.step(id, { event: { kind: "update", payload: { message: "m" } } });
        }
        return await scriptsRun(cluster) - before;
      };
      assertEquals(await steps(home, 10), 10, "the session's channel lives in the tree's slot");
      assertEquals(await steps("kid", 10), 20, "a child in another session: one relayed append per event");
      store.tasks.shareEvents({ session: true, global: true });
      assertEquals(await steps(home, 10), 20, "the global channel: one relayed append per event");
      const count = async (channel: string) => (await store.events.range(channel, 0)).length;
      assertEquals([await count("session:s-home"), await count("session:s-away"), await count("global")], [20, 10, 10]);
      await store.close();
    },
  );
  await t.step(
    "cluster: 48 partitions on a new cluster; one that holds tasks of the first layout keeps its 16",
    async () => {
      const master = (await masterPorts(cluster))[0];
      /** The partition tags 40 new roots' keys use, and how many of each layout's tags they are. */
      const tagsOf = async (prefix: string) => {
        const store = await openStore({ url: cluster.url, prefix });
        for (let i = 0; i < 40; i++) await store.tasks.create(task(`layout-${i}`));
        assertEquals((await store.tasks.list({ limit: 100 })).total, 40);
        await store.close();
        const keys = (await Promise.all(
          (await masterPorts(cluster)).map((port) =>
            cluster.cli(port, "--scan", "--pattern", `${prefix}*task:layout-*`)
          ),
        )).join("\n");
        const tags = new Set([...keys.matchAll(/\{(t:[\d.]+)\}/g)].map(([, tag]) => tag));
        const among = (n: number) => [...tags].filter((tag) => partitionTags("t", n).includes(tag)).length;
        return { tags: tags.size, first: among(FIRST_CLUSTER_PARTITIONS), now: among(CLUSTER_PARTITIONS) };
      };
      const fresh = await tagsOf(`layout-new-${crypto.randomUUID()}:`);
      assert(fresh.tags > 16 && fresh.now === fresh.tags, `40 roots over 48 partitions: ${JSON.stringify(fresh)}`);
      // A cluster that a release before ran tasks on: its counter is in the {t} slot, under whatever prefix.
      const old = `layout-old-${crypto.randomUUID()}:`;
      await cluster.cli(master, "-c", "SET", `other-app:{t}:seq`, "12");
      try {
        const kept = await tagsOf(old);
        assert(kept.tags <= 16 && kept.first === kept.tags, `40 roots over 16 partitions: ${JSON.stringify(kept)}`);
        assertEquals((await cluster.cli(master, "-c", "GET", `${old}{t}:layout`)).trim(), "16", "kept in the cluster");
      } finally {
        await cluster.cli(master, "-c", "DEL", `other-app:{t}:seq`);
      }
    },
  );
  await t.step("cluster: tasks of two partitions with one creation number list once each, by partition", async () => {
    const prefix = `ties-${crypto.randomUUID()}:`;
    const store = await openStore({ url: cluster.url, prefix });
    const layout = new TaskLayout(prefix, CLUSTER_PARTITIONS);
    const idIn = (b: number) => {
      for (let k = 0;; k++) if (layout.rootPartition(`tie-${k}`) === b) return `tie-${k}`;
    };
    await store.tasks.create(task("now"));
    // Two partitions' last numbers set ahead of the clock: their next tasks take the same number.
    const ahead = String(Date.now() * 1000 + 60_000_000);
    for (const b of [3, 9]) {
      await cluster.cli((await masterPorts(cluster))[0], "-c", "SET", `${layout.keys(b)}seq`, ahead);
    }
    const [later, earlier] = [idIn(9), idIn(3)];
    await store.tasks.create(task(later));
    await store.tasks.create(task(earlier));
    assertEquals((await store.tasks.get(later))?.seq, (await store.tasks.get(earlier))?.seq);
    const pageByPage = async (order: "asc" | "desc", cursor?: string) => {
      const ids: string[] = [];
      do {
        const page = await store.tasks.list({ order, limit: 1, cursor });
        ids.push(...page.tasks.map((x) => x.task_id));
        cursor = page.next_cursor;
      } while (cursor);
      return ids;
    };
    assertEquals(await pageByPage("asc"), ["now", earlier, later]);
    assertEquals(await pageByPage("desc"), [later, earlier, "now"]);
    assertEquals(await pageByPage("asc", "5"), ["now", earlier, later], "a cursor of the old counter is a number");
    await store.close();
  });
  await t.step("cluster: task trees (by session) and queue partitions spread over every master", async () => {
    const prefix = `spread-${crypto.randomUUID()}:`;
    const store = await openStore({ url: cluster.url, prefix });
    for (let i = 0; i < 48; i++) {
      await store.tasks.create(task(`root-${i}`, { session_id: `s${i}` }));
      await store.tasks.create(
        task(`child-${i}`, { parent_id: `root-${i}`, spawn_key: "child-0", session_id: `s${i}` }),
      );
      await store.tasks.step(`child-${i}`, { to: "done", event: { kind: "done", payload: { result: {} } } });
      await store.queue.push(`root-${i}`);
    }
    // Each master holds some trees (their hashes) and some queue partitions.
    const masters = await masterPorts(cluster);
    for (const port of masters) {
      const keys = (await cluster.cli(port, "--scan", "--pattern", `${prefix}*`)).trim().split("\n");
      assert(keys.some((k) => k.includes(":task:root-")), `no task tree on the master at ${port}: ${keys}`);
      assert(keys.some((k) => /:queue$/.test(k)), `no queue partition on the master at ${port}: ${keys}`);
    }
    // A tree stays whole in one slot: the child's hash sits in its root's slot.
    for (const i of [0, 7, 31]) {
      const slot = async (key: string) => (await cluster.cli(masters[0], "CLUSTER", "KEYSLOT", key)).trim();
      const keys = (await Promise.all(masters.map((port) => cluster.cli(port, "--scan", "--pattern", `${prefix}*`))))
        .join("\n").split("\n");
      const root = keys.find((k) => k.endsWith(`:task:root-${i}`))!;
      const child = keys.find((k) => k.endsWith(`:task:child-${i}`))!;
      assertEquals(await slot(child), await slot(root));
    }
    // Listing reads across the slots in creation order; the children's events reach their parents.
    const all = await store.tasks.list({ limit: 200 });
    assertEquals(all.total, 96);
    assertEquals(all.tasks.map((x) => x.task_id).slice(0, 4), ["root-0", "child-0", "root-1", "child-1"]);
    const newest = await store.tasks.list({ roots: true, order: "desc", limit: 3 });
    assertEquals([newest.tasks.map((x) => [x.task_id, x.children]), newest.total], [
      [["root-47", 1], ["root-46", 1], ["root-45", 1]],
      48,
    ]);
    assertEquals((await store.tasks.list({ status: "done", limit: 200 })).total, 48);
    assertEquals((await store.tasks.list({ session_id: "s1", limit: 200 })).total, 2);
    assertEquals(kinds(await store.events.range("task:root-5", 0)), ["subtask_spawned", "subtask_done"]);
    assertEquals((await store.events.range("global", 0)).length, 48);
    // One consumer takes the jobs of every partition.
    const taken = new Set<string>();
    for (let jobs = await store.queue.take("r", 60_000); jobs.length; jobs = await store.queue.take("r", 60_000)) {
      taken.add(jobs[0].taskId);
      await store.queue.ack(jobs[0].id);
    }
    assertEquals(taken.size, 48);
    await store.close();
  });
  await t.step("cluster: a take's jobs come from every master, a few partitions at a time", async () => {
    const prefix = `take-spread-${crypto.randomUUID()}:`;
    const store = await openStore({ url: cluster.url, prefix });
    const layout = new TaskLayout(prefix, CLUSTER_PARTITIONS);
    // Four jobs in each partition: a take finds jobs wherever it asks.
    const queued = new Array(CLUSTER_PARTITIONS).fill(0);
    for (let k = 0; queued.some((n) => n < 4); k++) {
      const b = layout.rootPartition(`job-${k}`);
      if (queued[b] === 4) continue;
      queued[b]++;
      await store.queue.push(`job-${k}`);
    }
    const masters = await masterPorts(cluster);
    const masterOf = async (b: number) => {
      for (const port of masters) {
        if ((await cluster.cli(port, "EXISTS", `${layout.keys(b)}queue`)).trim() === "1") return port;
      }
      throw new Error(`partition ${b}'s queue is on no master`);
    };
    // A runner's work then spreads over the shards: a take that drew on one master's partitions at a time
    // loaded that master while the others idled.
    for (let round = 0; round < 3; round++) {
      const before = await scriptsRun(cluster);
      const jobs = await store.queue.take("r", 60_000, [DEFAULT_LANE], undefined, [16]);
      assertEquals(jobs.length, 16);
      // Partitions that have jobs hand out several each: a script per job cost the masters a take script per task.
      assertEquals(await scriptsRun(cluster) - before, 4, "16 jobs from 4 partitions");
      const from = new Set(await Promise.all(jobs.map((job) => masterOf(layout.rootPartition(job.taskId)))));
      assertEquals(from.size, masters.length, `take ${round + 1}: jobs from ${from.size} of ${masters.length} masters`);
    }
    await store.close();
  });
  await t.step(
    "cluster: followers of channels on every shard share one subscriber connection per shard",
    async () => {
      const store = await openStore({ url: cluster.url, prefix: `follow-${crypto.randomUUID()}:` });
      const channels = Array.from({ length: 30 }, (_, i) => i % 2 ? `session:s${i}` : `task:r${i}`);
      for (const channel of channels.filter((c) => c.startsWith("task:"))) {
        await store.tasks.create(task(channel.slice(5)));
      }
      const controller = new AbortController();
      let following = 0;
      const firsts = channels.map(async (channel) => {
        const iterator = store.events.follow(channel, await store.events.last(channel), controller.signal)[
          Symbol.asyncIterator
        ]();
        const next = iterator.next();
        following++;
        const event = await next;
        await iterator.return?.();
        return [channel, event.done ? "none" : event.value.kind];
      });
      const masters = await masterPorts(cluster);
      const subscribers = async () =>
        (await Promise.all(cluster.ports.map((port) => cluster.cli(port, "CLIENT", "LIST")))).map((list) =>
          list.split("\n").filter((line) => /\bssub=[1-9]/.test(line)).length
        );
      // Every channel followed: each master that holds one has a subscriber connection of ours, and only one.
      while (following < channels.length) await sleep(10);
      let perShard = await subscribers();
      for (let i = 0; i < 100 && perShard.filter((n) => n > 0).length < masters.length; i++) {
        await sleep(20);
        perShard = await subscribers();
      }
      assertEquals(perShard.filter((n) => n > 0).length, masters.length, `${perShard}`);
      assert(perShard.every((n) => n <= 1), `subscriber connections per node: ${perShard}`);
      for (const channel of channels) {
        if (channel.startsWith("task:")) {
          await store.tasks.step(channel.slice(5), { event: { kind: "token", payload: { message: "x" } } });
        } else await store.events.append(channel, "token", { task_id: "t" });
      }
      assertEquals(await Promise.all(firsts), channels.map((channel) => [channel, "token"]));
      controller.abort();
      await store.close();
    },
  );
}
