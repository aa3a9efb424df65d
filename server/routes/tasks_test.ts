import { z } from "@hono/zod-openapi";
import { assert, assertEquals, assertMatch } from "../../testing/assert.ts";
import { startRedis } from "../../testing/redis_server.ts";
import { missingTools } from "../../testing/tools.ts";
import { createMemoryStore, openStore, type Store, StoreUnavailableError } from "../../lib/store/mod.ts";
import { defineTask } from "../../lib/tasks/mod.ts";
import { testApp } from "../../testing/service.ts";

/** A root with a child that finishes at once and a slow child with two slow grandchildren. */
const mixed = defineTask({
  kind: "mixed",
  input: z.object({}),
  async run(ctx) {
    const fast = ctx.spawn("demo", { steps: 0 }, { key: "fast" });
    await fast;
    const slow = ctx.spawn("demo", { steps: 200, delay_ms: 50, children: 2 }, { key: "slow" });
    await ctx.update("waiting");
    await slow;
  },
});

type Json = Record<string, unknown> & { [k: string]: unknown };

/** The app over `store` with the `mixed` kind besides the built-in ones, and the settings of `env`. */
function setup(store: Store, env: Record<string, string> = {}) {
  const { app, service } = testApp({ store, env, kinds: [mixed] });
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await app.request(path, {
      method,
      headers: { ...(body !== undefined && { "content-type": "application/json" }), ...headers },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return {
      status: res.status,
      type: res.headers.get("content-type"),
      res,
      body: (text ? JSON.parse(text) : null) as Json,
    };
  };
  /** Waits until the task's channel carries an event of `kind`. */
  const waitFor = async (taskId: string, kind: string) => {
    const signal = AbortSignal.timeout(10_000);
    for await (const event of store.events.follow(`task:${taskId}`, 0, signal)) if (event.kind === kind) return;
    throw new Error(`no ${kind} event for ${taskId}`);
  };
  /** POSTs `text` as it is, as application/json. */
  const raw = async (path: string, text: string) => {
    const res = await app.request(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: text,
    });
    return { status: res.status, body: await res.json() as Json };
  };
  return {
    call,
    raw,
    waitFor,
    [Symbol.asyncDispose]: () => service.close(),
  };
}

async function suite(t: Deno.TestContext, open: () => Promise<Store>) {
  await t.step("POST /tasks → 201 task; GET it with result and updates once done", async () => {
    await using api = setup(await open());
    const created = await api.call("POST", "/tasks", {
      kind: "demo",
      input: { steps: 2, delay_ms: 1, tokens: ["a", "b"] },
      session_id: "s-1",
      metadata: { message: "hello" },
    });
    assertEquals(created.status, 201);
    const id = created.body.task_id as string;
    assertEquals(created.res.headers.get("location"), `/tasks/${id}`);
    assertEquals([created.body.status, created.body.session_id, created.body.metadata], [
      "in_progress",
      "s-1",
      { message: "hello" },
    ]);
    await api.waitFor(id, "done");
    const got = await api.call("GET", `/tasks/${id}`);
    assertEquals([got.status, got.body.status, got.body.result, got.body.updates], [200, "done", { answer: "ab" }, [
      { message: "step 1 of 2", update_type: "info" },
      { message: "step 2 of 2", update_type: "info" },
    ]]);
    assert(!("seq" in got.body) && !("answer" in got.body), "no internals");
  });

  await t.step("POST /tasks: unknown kind, bad input, missing kind → 422 listing the fields", async () => {
    await using api = setup(await open());
    const unknown = await api.call("POST", "/tasks", { kind: "nope" });
    assertEquals([unknown.status, unknown.type], [422, "application/problem+json"]);
    const [error, ...more] = unknown.body.errors as { field: string; message: string }[];
    assertEquals([error.field, more], ["kind", []]);
    assertMatch(
      error.message,
      /^Unknown task kind 'nope'; use one of: demo, pipeline_run, .*, answer, retrieve, mixed$/,
    );
    const bad = await api.call("POST", "/tasks", { kind: "demo", input: { steps: "x", children: 99 } });
    assertEquals(
      [bad.status, (bad.body.errors as { field: string }[]).map((e) => e.field).sort()],
      [422, ["input.children", "input.steps"]],
    );
    const missing = await api.call("POST", "/tasks", { input: {} });
    assertEquals([missing.status, (missing.body.errors as { field: string }[])[0].field], [422, "kind"]);
    assertEquals((await api.call("GET", "/tasks")).body.total, 0);
  });

  await t.step(
    "POST /tasks: one request cannot make a thousand tasks → 422 naming the limit, nothing stored",
    async () => {
      await using api = setup(await open());
      const probe = { steps: 0, children: 10, depth: 3, tokens: Array(2_000).fill("token") };
      const refused = await api.call("POST", "/tasks", { kind: "demo", input: probe });
      assertEquals([refused.status, refused.type], [422, "application/problem+json"]);
      assertMatch(refused.body.detail as string, /1,111 tasks in one tree; at most 100 .*\(TASK_MAX_TREE_TASKS\)/);
      assertEquals((refused.body.errors as Json[])[0].field, "input");
      const flood = await api.call("POST", "/tasks", { kind: "demo", input: { tokens: Array(100_000).fill("t") } });
      assertMatch(flood.body.detail as string, /100,004 events on one task; at most 50,000 .*\(TASK_MAX_EVENTS\)/);
      assertEquals((await api.call("GET", "/tasks")).body.total, 0);
    },
  );

  await t.step("POST /tasks over a tenant's quota → 429 with Retry-After naming it", async () => {
    await using api = setup(await open(), { TENANT_MAX_LIVE_TASKS: "1" });
    assertEquals((await api.call("POST", "/tasks", { kind: "demo", input: { ask: "?" } })).status, 201);
    const over = await api.call("POST", "/tasks", { kind: "demo", input: { ask: "?" } });
    assertEquals([over.status, over.type, over.res.headers.get("retry-after")], [429, "application/problem+json", "1"]);
    assertMatch(over.body.detail as string, /at most 1 unfinished tasks .*\(TENANT_MAX_LIVE_TASKS\)/);
    assertEquals((await api.call("GET", "/tasks")).body.total, 1);
  });

  await t.step("GET /tasks lists newest first, filters by status and session, pages; bad values → 422", async () => {
    await using api = setup(await open());
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { body } = await api.call("POST", "/tasks", {
        kind: "demo",
        input: { steps: 0, ...(i === 1 && { ask: "?" }) },
        session_id: i === 2 ? "other" : "main",
      });
      ids.push(body.task_id as string);
    }
    await api.waitFor(ids[0], "done");
    await api.waitFor(ids[1], "input_required");
    await api.waitFor(ids[2], "done");
    const page1 = await api.call("GET", "/tasks?limit=2");
    assertEquals(page1.body.total, 3);
    assertEquals((page1.body.tasks as Json[]).map((x) => x.task_id), [ids[2], ids[1]]);
    assertEquals(Object.keys((page1.body.tasks as Json[])[0]).sort(), [
      "children",
      "created_at",
      "kind",
      "metadata",
      "session_id",
      "status",
      "task_id",
      "updated_at",
    ]);
    // A row's times are the task's own (the console shows them relative: "3 s ago").
    for (const row of page1.body.tasks as Json[]) {
      const task = (await api.call("GET", `/tasks/${row.task_id}`)).body;
      assertEquals([row.created_at, row.updated_at], [task.created_at, task.updated_at]);
      assert(!Number.isNaN(Date.parse(row.updated_at as string)), String(row.updated_at));
    }
    const page2 = await api.call("GET", `/tasks?limit=2&cursor=${page1.body.next_cursor}`);
    assertEquals([(page2.body.tasks as Json[]).map((x) => x.task_id), page2.body.next_cursor], [[ids[0]], undefined]);
    const oldest = await api.call("GET", "/tasks?order=asc&limit=2");
    const rest = await api.call("GET", `/tasks?order=asc&limit=2&cursor=${oldest.body.next_cursor}`);
    assertEquals([...oldest.body.tasks as Json[], ...rest.body.tasks as Json[]].map((x) => x.task_id), ids);
    const waiting = await api.call("GET", "/tasks?status=input_required");
    assertEquals([(waiting.body.tasks as Json[]).map((x) => x.task_id), waiting.body.total], [[ids[1]], 1]);
    const main = await api.call("GET", "/tasks?session_id=main&status=done");
    assertEquals((main.body.tasks as Json[]).map((x) => x.task_id), [ids[0]]);
    for (const query of ["status=finished", "limit=0", "limit=abc", "cursor=x", "order=up", "roots=yes"]) {
      const res = await api.call("GET", `/tasks?${query}`);
      assertEquals([res.status, res.type], [422, "application/problem+json"], query);
    }
  });

  await t.step(
    "GET /tasks?roots=true lists top-level tasks with their children count; a child row names its parent",
    async () => {
      await using api = setup(await open());
      const parent = (await api.call("POST", "/tasks", { kind: "demo", input: { steps: 0, children: 2 } })).body;
      await api.waitFor(parent.task_id as string, "done"); // its children are made before the next task
      const single = (await api.call("POST", "/tasks", { kind: "demo", input: { steps: 0 } })).body;
      const roots = await api.call("GET", "/tasks?roots=true");
      assertEquals(
        [(roots.body.tasks as Json[]).map((x) => [x.task_id, x.children, x.parent_id]), roots.body.total],
        [[[single.task_id, 0, undefined], [parent.task_id, 2, undefined]], 2],
      );
      const all = await api.call("GET", "/tasks?order=asc");
      assertEquals(
        (all.body.tasks as Json[]).map((x) => x.parent_id ?? ""),
        ["", parent.task_id, parent.task_id, ""],
      );
    },
  );

  await t.step("GET, DELETE, cancel, children, tree, input of an unknown task → 404 problem", async () => {
    await using api = setup(await open());
    for (
      const [method, path] of [
        ["GET", "/tasks/nope"],
        ["DELETE", "/tasks/nope"],
        ["POST", "/tasks/nope/cancel"],
        ["GET", "/tasks/nope/children"],
        ["GET", "/tasks/nope/tree"],
      ]
    ) {
      const res = await api.call(method, path);
      assertEquals([res.status, res.type, res.body.detail], [
        404,
        "application/problem+json",
        "No task 'nope'; GET /tasks lists the tasks there are",
      ], `${method} ${path}`);
    }
    assertEquals((await api.call("POST", "/tasks/nope/input", { input: "x" })).status, 404);
  });

  await t.step("cancel: cascade over a 3-level tree counts only tasks it moved; query, body, default", async () => {
    await using api = setup(await open());
    const { body } = await api.call("POST", "/tasks", { kind: "mixed" });
    const root = body.task_id as string;
    await api.waitFor(root, "update");
    const children = await api.call("GET", `/tasks/${root}/children`);
    assertEquals(
      (children.body.children as Json[]).map((c) => [c.spawn_key, c.status, c.result]),
      [["fast", "done", { answer: "" }], ["slow", "in_progress", undefined]],
    );
    const slow = (children.body.children as Json[])[1].task_id as string;
    await api.waitFor(slow, "subtask_spawned");
    // root, slow and its two children; `fast` is done and not counted
    const cancelled = await api.call("POST", `/tasks/${root}/cancel?cascade=true`);
    assertEquals([cancelled.status, cancelled.body], [200, { cancelled_count: 4 }]);
    assertEquals((await api.call("POST", `/tasks/${root}/cancel`, { cascade: true })).body, { cancelled_count: 0 });
    const tree = await api.call("GET", `/tasks/${root}/tree`);
    const shape = (node: Json): unknown => [
      (node.task as Json).spawn_key ?? "root",
      (node.task as Json).status,
      (node.children as Json[]).map(shape),
    ];
    assertEquals(shape(tree.body), ["root", "cancelled", [
      ["fast", "done", []],
      ["slow", "cancelled", [["child-0", "cancelled", []], ["child-1", "cancelled", []]]],
    ]]);
    const bad = await api.call("POST", `/tasks/${root}/cancel?cascade=maybe`);
    assertEquals(bad.status, 422);
  });

  await t.step(
    "cancel: without cascade the CASCADE_CANCEL default applies; the body's cascade overrides it",
    async () => {
      await using api = setup(await open(), { CASCADE_CANCEL: "false" });
      const { body } = await api.call("POST", "/tasks", {
        kind: "demo",
        input: { steps: 200, delay_ms: 50, children: 2 },
      });
      const root = body.task_id as string;
      await api.waitFor(root, "update");
      assertEquals((await api.call("POST", `/tasks/${root}/cancel`)).body, { cancelled_count: 1 });
      const second = await api.call("POST", "/tasks", {
        kind: "demo",
        input: { steps: 200, delay_ms: 50, children: 2 },
      });
      await api.waitFor(second.body.task_id as string, "update");
      assertEquals((await api.call("POST", `/tasks/${second.body.task_id}/cancel`, { cascade: true })).body, {
        cancelled_count: 3,
      });
    },
  );

  await t.step("input: 409 unless input_required; 422 without input; 200 resumes the task", async () => {
    await using api = setup(await open());
    const { body } = await api.call("POST", "/tasks", {
      kind: "demo",
      input: { steps: 0, tokens: ["a"], ask: "Name?" },
    });
    const id = body.task_id as string;
    await api.waitFor(id, "input_required");
    const waiting = await api.call("GET", `/tasks/${id}`);
    assertEquals([waiting.body.status, waiting.body.prompt], ["input_required", "Name?"]);
    assertEquals((await api.call("POST", `/tasks/${id}/input`, {})).status, 422);
    const answered = await api.call("POST", `/tasks/${id}/input`, { input: { name: "Ada" } });
    assertEquals(answered.status, 200);
    await api.waitFor(id, "done");
    const conflict = await api.call("POST", `/tasks/${id}/input`, { input: "again" });
    assertEquals([conflict.status, conflict.body.title], [409, "Conflict"]);
    assertMatch(conflict.body.detail as string, /^Task '.+' is done, not input_required/);
    assertEquals((await api.call("GET", `/tasks/${id}`)).body.result, { answer: "a", input: { name: "Ada" } });
  });

  await t.step("tree: every node carries its own updates, as GET /tasks/{id} shows them", async () => {
    await using api = setup(await open());
    const { body } = await api.call("POST", "/tasks", { kind: "demo", input: { steps: 2, delay_ms: 1, children: 2 } });
    const root = body.task_id as string;
    await api.waitFor(root, "done");
    const tree = await api.call("GET", `/tasks/${root}/tree`);
    const nodes: Json[] = [];
    const walk = (node: Json) => {
      nodes.push(node.task as Json);
      for (const child of node.children as Json[]) walk(child);
    };
    walk(tree.body);
    assertEquals(nodes.length, 3);
    for (const task of nodes) {
      const alone = await api.call("GET", `/tasks/${task.task_id}`);
      assertEquals(task.updates, alone.body.updates, String(task.spawn_key ?? "root"));
      assertEquals((task.updates as unknown[]).length, 2);
    }
  });

  await t.step("GET /tasks?status= takes the specification's spelling in any case (CANCELLED, Done)", async () => {
    await using api = setup(await open());
    const { body } = await api.call("POST", "/tasks", { kind: "demo", input: { steps: 100, delay_ms: 50 } });
    await api.call("POST", `/tasks/${body.task_id}/cancel`);
    for (const status of ["CANCELLED", "Cancelled", "cancelled"]) {
      const res = await api.call("GET", `/tasks?status=${status}`);
      assertEquals([res.status, res.body.total], [200, 1], status);
    }
    assertEquals((await api.call("GET", "/tasks?status=DONE")).body.total, 0);
    assertEquals((await api.call("GET", "/tasks?status=FINISHED")).status, 422);
  });

  await t.step(
    "input nested too deep: 422 before anything changes; a later valid answer resumes the task",
    async () => {
      await using api = setup(await open());
      const { body } = await api.call("POST", "/tasks", { kind: "demo", input: { steps: 0, ask: "Name?" } });
      const id = body.task_id as string;
      await api.waitFor(id, "input_required");
      const deep = "[".repeat(5_000) + "]".repeat(5_000);
      for (
        const [path, text] of [[`/tasks/${id}/input`, `{"input":${deep}}`], [
          "/tasks",
          `{"kind":"demo","input":${deep}}`,
        ]]
      ) {
        const res = await api.raw(path, text);
        assertEquals([res.status, res.body.errors], [422, [{
          field: "(body)",
          message: "JSON nested deeper than 100 levels; flatten the data",
        }]], path);
      }
      const ok = "[".repeat(98) + "1" + "]".repeat(98); // 100 levels with the body and metadata objects
      assertEquals(
        (await api.raw("/tasks", `{"kind":"demo","input":{"steps":0,"tokens":[]},"metadata":{"x":${ok}}}`)).status,
        201,
      );
      const still = await api.call("GET", `/tasks/${id}`);
      assertEquals([still.body.status, still.body.prompt, (still.body.updates as unknown[]).length], [
        "input_required",
        "Name?",
        0,
      ]);
      assertEquals((await api.call("POST", `/tasks/${id}/input`, { input: "Ada" })).status, 200);
      await api.waitFor(id, "done");
      assertEquals((await api.call("GET", `/tasks/${id}`)).body.result, { answer: "", input: "Ada" });
    },
  );

  await t.step(
    "Idempotency-Key: same body → 200 the original task; other body → 409; concurrent → one task",
    async () => {
      await using api = setup(await open());
      const body = { kind: "demo", input: { steps: 0 } };
      const first = await api.call("POST", "/tasks", body, { "idempotency-key": "k-1" });
      assertEquals(first.status, 201);
      const again = await api.call("POST", "/tasks", body, { "idempotency-key": "k-1" });
      assertEquals([again.status, again.body.task_id, again.res.headers.get("idempotent-replayed")], [
        200,
        first.body.task_id,
        "true",
      ]);
      const other = await api.call("POST", "/tasks", { ...body, session_id: "s" }, { "idempotency-key": "k-1" });
      assertEquals([other.status, other.type], [409, "application/problem+json"]);
      const fresh = await api.call("POST", "/tasks", body, { "idempotency-key": "k-2" });
      assertEquals(fresh.status, 201);
      assert(fresh.body.task_id !== first.body.task_id);
      const together = await Promise.all(
        Array.from({ length: 5 }, () => api.call("POST", "/tasks", body, { "idempotency-key": "k-3" })),
      );
      const created = together.filter((r) => r.status === 201);
      assertEquals(created.length, 1, together.map((r) => r.status).join(","));
      for (const r of together) {
        if (r.status === 200) assertEquals(r.body.task_id, created[0].body.task_id);
        else if (r.status === 409) assertMatch(r.body.detail as string, /still being handled/);
        else assertEquals(r.status, 201);
      }
      assertEquals((await api.call("GET", "/tasks")).body.total, 3);
      const invalid = await api.call("POST", "/tasks", { kind: "nope" }, { "idempotency-key": "k-4" });
      assertEquals(invalid.status, 422);
      assertEquals(
        (await api.call("POST", "/tasks", body, { "idempotency-key": "k-4" })).status,
        201,
        "a refused request holds no key",
      );
      for (const key of ["", "a b", "x".repeat(256), "é"]) {
        const res = await api.call("POST", "/tasks", body, { "idempotency-key": key });
        assertEquals(
          [res.status, (res.body.errors as Json[])?.[0]?.field],
          [422, "idempotency-key"],
          JSON.stringify(key),
        );
      }
      assertEquals((await api.call("GET", "/tasks")).body.total, 4);
    },
  );

  await t.step("DELETE: 204, removes the running tree; then 404", async () => {
    await using api = setup(await open());
    const { body } = await api.call("POST", "/tasks", {
      kind: "demo",
      input: { steps: 200, delay_ms: 50, children: 2 },
    });
    const id = body.task_id as string;
    await api.waitFor(id, "update");
    const children = (await api.call("GET", `/tasks/${id}/children`)).body.children as Json[];
    assertEquals((await api.call("DELETE", `/tasks/${id}`)).status, 204);
    for (const task of [id, ...children.map((c) => c.task_id)]) {
      assertEquals((await api.call("GET", `/tasks/${task}`)).status, 404);
    }
    assertEquals((await api.call("GET", "/tasks")).body.total, 0);
  });
}

Deno.test("task API: memory store", (t) => suite(t, () => Promise.resolve(createMemoryStore())));

Deno.test("task API: Redis (real redis-server)", { ignore: missingTools("redis-server") }, async (t) => {
  await using redis = await startRedis();
  await suite(t, () => openStore({ url: redis.url, prefix: `api-${crypto.randomUUID()}:` }));
});

Deno.test("task API: /openapi.json lists every task endpoint with its bodies and problems", async () => {
  const spec = await (await testApp().app.request("/openapi.json")).json();
  const ops = Object.entries(spec.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
  for (
    const op of [
      "POST /tasks",
      "GET /tasks",
      "GET /tasks/{task_id}",
      "DELETE /tasks/{task_id}",
      "POST /tasks/{task_id}/cancel",
      "GET /tasks/{task_id}/children",
      "GET /tasks/{task_id}/tree",
      "POST /tasks/{task_id}/input",
    ]
  ) assert(ops.includes(op), `${op} missing from ${ops.join(", ")}`);
  assert(spec.paths["/tasks"].post.responses["422"].content["application/problem+json"]);
  assert(spec.paths["/tasks/{task_id}/input"].post.responses["409"]);
  assert(spec.components.schemas.Task.properties.updates);
});

Deno.test("task API: a store that does not answer is a 503 naming it; other failures a 500 with a traceId", async () => {
  const lines: string[] = [];
  const message = "Redis at 127.0.0.1:6390 is not reachable (connection refused); retrying";
  for (
    const [error, status] of [[new StoreUnavailableError(message), 503], [new Error("internal words"), 500]] as const
  ) {
    const store = createMemoryStore();
    const broken: Store = { ...store, tasks: { ...store.tasks, get: () => Promise.reject(error) } };
    await using served = testApp({ store: broken, log: (l) => lines.push(l) });
    const res = await served.app.request("/tasks/x");
    const body = await res.json();
    assertEquals([res.status, res.headers.get("content-type")], [status, "application/problem+json"]);
    if (status === 503) {
      assertEquals(body.detail, `The store did not answer: ${message}. Try again shortly`);
      assertEquals(res.headers.get("retry-after"), "1");
    } else {
      assert(!JSON.stringify(body).includes("internal words"));
      assert(lines.some((l) => l.includes(body.traceId) && l.includes("internal words")));
    }
  }
});
