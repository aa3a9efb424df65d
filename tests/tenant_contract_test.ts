/**
 * Tenant isolation on every store: `Store.forTenant(tenant)` views whose tasks,
 * events, queue, documents and idempotency keys are the tenant's own, beside the untenanted base.
 *
 * @module
 */
import { assert, assertEquals, assertThrows } from "../testing/assert.ts";
import { openStore, type Store, type StoredEvent } from "../lib/store/mod.ts";
import { createSearchIndex } from "../lib/pipelines/mod.ts";
import type { RedisCluster } from "../testing/redis_cluster.ts";
import { startRedis } from "../testing/redis_server.ts";
import { masterPorts, type OpenStore, task, testOnEveryStore } from "../testing/store_backends.ts";
import { missingTools, requireTool } from "../testing/tools.ts";
import { until } from "../testing/until.ts";
import { sleep } from "../lib/time/mod.ts";

const kinds = (events: StoredEvent[]) => events.map((e) => e.kind);
const doc = (id: string, chunks: string[]) => ({
  id,
  title: `Title ${id}`,
  source: `${id}.md`,
  hash: `${id}00000000`,
  chunks,
});

/** The first event a follower of `channel` in `store` yields after `after`. */
function firstEvent(store: Store, channel: string, after: number): { event: Promise<StoredEvent>; stop(): void } {
  const controller = new AbortController();
  const event = (async () => {
    for await (const event of store.events.follow(channel, after, controller.signal)) {
      controller.abort();
      return event;
    }
    throw new Error(`the follower of ${channel} ended without an event`);
  })();
  return { event, stop: () => controller.abort() };
}

/** Two tenant views A and B of one store, beside the base, on every backend. */
async function contract(t: Deno.TestContext, open: OpenStore) {
  let n = 0;
  const fresh = async () => {
    const base = await open(`tenants-${crypto.randomUUID()}-${n++}:`);
    return { base, a: base.forTenant("A"), b: base.forTenant("B") };
  };

  await t.step("forTenant: one view per tenant, kind of the base; names are checked", async () => {
    const { base, a, b } = await fresh();
    assert(base.forTenant("A") === a, "the same tenant is the same view");
    assert(a !== b && a !== base);
    assertEquals([a.kind, b.kind], [base.kind, base.kind]);
    assert(a.forTenant("B") === b, "tenants do not nest: a view's forTenant is the base's");
    const long = "x".repeat(64);
    assert(base.forTenant(long) !== base, "64 characters are allowed");
    assert(base.forTenant("acme.eu_1-prod") !== base);
    for (const bad of ["", "x".repeat(65), "a:b", "{t}", "a}", "a b", "é", "a/b", "a*"]) {
      assertThrows(
        () => base.forTenant(bad),
        new RegExp(`'${bad.replace(/[{}*]/g, "\\$&")}' is not a valid tenant name: use 1-64 characters`),
      );
    }
    await a.ping();
    assertEquals((await a.hitSlidingWindow("k", 1, 60_000)).allowed, true);
    assertEquals((await base.hitSlidingWindow("k", 1, 60_000)).allowed, false, "the rate limit is the base's");
    await base.close();
  });

  await t.step("tasks: a tenant's tasks are its own; the same task and session ids live in each", async () => {
    const { base, a, b } = await fresh();
    assertEquals(await a.tasks.create(task("t1", { session_id: "s" })), true);
    assertEquals(await a.tasks.create(task("c1", { parent_id: "t1", spawn_key: "k", session_id: "s" })), true);
    for (const other of [b, base]) {
      assertEquals(await other.tasks.get("t1"), undefined);
      assertEquals(await other.tasks.children("t1"), []);
      assertEquals((await other.tasks.list({ limit: 10 })).total, 0);
      assertEquals((await other.tasks.list({ limit: 10, status: "in_progress" })).total, 0);
      assertEquals((await other.tasks.list({ limit: 10, session_id: "s" })).total, 0);
      assertEquals(await other.tasks.step("t1", { to: "done" }), { ok: false }, "no such task there");
    }
    assertEquals(await b.tasks.create({ ...task("t1", { session_id: "s" }), metadata: { message: "B's" } }), true);
    assertEquals(await a.tasks.create(task("t1", { session_id: "s" })), false, "still a duplicate in A");
    assertEquals(await b.tasks.step("t1", { to: "done" }), { ok: true });
    assertEquals([(await a.tasks.get("t1"))?.status, (await b.tasks.get("t1"))?.status], ["in_progress", "done"]);
    assertEquals((await b.tasks.get("t1"))?.metadata, { message: "B's" });
    assertEquals((await a.tasks.list({ limit: 10, session_id: "s" })).tasks.map((x) => x.task_id), ["t1", "c1"]);
    assertEquals((await b.tasks.list({ limit: 10, session_id: "s" })).tasks.map((x) => x.task_id), ["t1"]);
    assertEquals((await b.tasks.list({ limit: 10, status: "in_progress" })).total, 0);
    assertEquals((await base.tasks.list({ limit: 10 })).total, 0);
    assertEquals(await base.tasks.create(task("t1")), true, "and in the base");
    assertEquals((await a.tasks.list({ limit: 10 })).total, 2);
    await base.close();
  });

  await t.step("events: task, session and global channels are per tenant (append, range, last, follow)", async () => {
    const { base, a, b } = await fresh();
    await a.tasks.create(task("t1", { session_id: "s" }));
    await a.tasks.step("t1", { event: { kind: "update", payload: { message: "A" } } });
    for (const channel of ["task:t1", "session:s", "global"]) {
      assertEquals(kinds(await a.events.range(channel, 0)), ["update"], channel);
      assertEquals(await b.events.range(channel, 0), [], channel);
      assertEquals(await base.events.range(channel, 0), [], channel);
      assertEquals([await b.events.last(channel), await base.events.last(channel)], [0, 0]);
    }
    assertEquals(await b.events.append("global", "note", { from: "B" }), 1, "B's global starts at 1");
    assertEquals(await a.events.last("global"), 1);
    // Followers in B (and the base) of the channels A writes to: they get B's (the base's) event, never A's.
    for (const store of [b, base]) await store.tasks.create(task("t1", { session_id: "s" }));
    const followers = [b, base].flatMap((store) =>
      ["task:t1", "session:s", "global"].map(async (channel) => {
        const after = await store.events.last(channel);
        return { store, channel, follower: firstEvent(store, channel, after) };
      })
    );
    const started = await Promise.all(followers);
    await a.tasks.step("t1", { event: { kind: "update", payload: { message: "A again" } } });
    await a.events.append("session:s", "note", { from: "A" });
    await a.events.append("global", "note", { from: "A" });
    for (const store of [b, base]) {
      const from = store === b ? "B" : "base";
      await store.tasks.step("t1", { event: { kind: "update", payload: { message: from } } });
    }
    for (const { store, channel, follower } of started) {
      const event = await follower.event;
      assertEquals([channel, event.kind, event.data.message], [channel, "update", store === b ? "B" : "base"]);
    }
    assertEquals(kinds(await a.events.range("global", 0)), ["update", "update", "note"]);
    await base.close();
  });

  await t.step("cancel: a cascade in A moves only A's tree", async () => {
    const { base, a, b } = await fresh();
    for (const store of [a, b]) {
      await store.tasks.create(task("r"));
      await store.tasks.create(task("c", { parent_id: "r", spawn_key: "k0" }));
      await store.tasks.create(task("g", { parent_id: "c", spawn_key: "k1" }));
    }
    assertEquals(await a.tasks.cancel("r", true), { found: true, cancelled: ["r", "c", "g"] });
    const statuses = async (store: Store) =>
      await Promise.all(["r", "c", "g"].map(async (id) => (await store.tasks.get(id))?.status));
    assertEquals(await statuses(a), ["cancelled", "cancelled", "cancelled"]);
    assertEquals(await statuses(b), ["in_progress", "in_progress", "in_progress"]);
    assertEquals(kinds(await b.events.range("task:c", 0)), ["subtask_spawned"], "no `cancelled` in B");
    assertEquals(await base.tasks.cancel("r", true), { found: false, cancelled: [] });
    assertEquals(await b.tasks.remove("r"), ["r", "c", "g"]);
    assertEquals((await a.tasks.get("g"))?.status, "cancelled", "B's removal leaves A's tree");
    await base.close();
  });

  await t.step("queue: a job pushed in A is taken only from A", async () => {
    const { base, a, b } = await fresh();
    await a.queue.push("t1");
    await a.queue.push("t2", 1, "answers");
    assertEquals(await b.queue.take("runner", 60_000, ["tasks", "answers"]), []);
    assertEquals(await base.queue.take("runner", 60_000, ["tasks", "answers"]), []);
    const [job] = await a.queue.take("runner", 60_000);
    assertEquals(job?.taskId, "t1");
    assertEquals((await a.queue.take("runner", 60_000, ["answers"]))[0]?.taskId, "t2");
    await b.queue.push("t1");
    assertEquals((await b.queue.take("runner", 60_000))[0]?.taskId, "t1");
    assertEquals(await a.queue.take("runner", 60_000), []);
    await base.close();
  });

  await t.step("idempotency: the same key in A, B and the base are three keys", async () => {
    const { base, a, b } = await fresh();
    assertEquals(await a.idempotency.claim("k", "fa", 60_000), undefined);
    assertEquals(await b.idempotency.claim("k", "fb", 60_000), undefined);
    assertEquals(await base.idempotency.claim("k", "f0", 60_000), undefined);
    assertEquals(await a.idempotency.complete("k", "fa", "task-a", 60_000), true);
    assertEquals(await b.idempotency.claim("k", "fa", 60_000), { fingerprint: "fb" });
    assertEquals(await a.idempotency.claim("k", "fb", 60_000), { fingerprint: "fa", taskId: "task-a" });
    await b.idempotency.release("k", "fb");
    assertEquals(await b.idempotency.claim("k", "fc", 60_000), undefined);
    assertEquals(await a.idempotency.claim("k", "fc", 60_000), { fingerprint: "fa", taskId: "task-a" });
    await base.close();
  });

  await t.step("documents: put, read, stage, status, clear and the change stream are per tenant", async () => {
    const { base, a, b } = await fresh();
    assertEquals((await a.documents.put(doc("d1", ["Redis streams in A."]))).status, "added");
    assertEquals(await b.documents.documents(["d1"]), []);
    assertEquals(await base.documents.documents(["d1"]), []);
    assertEquals(await b.documents.chunks((await a.documents.documents(["d1"]))[0].chunk_ids), []);
    assertEquals([await b.documents.changes(0), await base.documents.changes(0)], [[], []]);
    assertEquals((await a.documents.changes(0)).map((c) => c.document_id), ["d1"]);
    assertEquals([(await b.documents.status()).documents, (await a.documents.status()).documents], [0, 1]);
    assertEquals((await b.documents.put(doc("d1", ["B's own d1.", "Two chunks."]))).status, "added", "B's d1 is new");
    assertEquals((await a.documents.documents(["d1"]))[0].chunk_ids.length, 1);
    await a.documents.stage([doc("s1", ["staged"])]);
    assertEquals((await b.documents.staged(10)).length, 0);
    await a.documents.setState("ingesting", "task-a");
    assertEquals([(await a.documents.status()).state, (await b.documents.status()).state], ["ingesting", "idle"]);
    assertEquals(await b.documents.clear(), 2);
    assertEquals((await a.documents.status()).chunks, 1, "B's clear leaves A's documents");
    await base.close();
  });

  await t.step("documents: a search index over B's view never finds A's documents", async () => {
    const { base, a, b } = await fresh();
    await a.documents.put(doc("redis", ["Redis streams keep an append-only log of entries."]));
    await b.documents.put(doc("cats", ["Cats sleep most of the day."]));
    const [inA, inB, inBase] = [createSearchIndex(a), createSearchIndex(b), createSearchIndex(base)];
    try {
      assertEquals((await inA.search("redis streams", 5)).map((h) => h.document_id), ["redis"]);
      assertEquals(await inB.search("redis streams", 5), []);
      assertEquals(await inBase.search("redis streams", 5), []);
      assertEquals((await inB.search("cats sleep", 5)).map((h) => h.document_id), ["cats"]);
      assertEquals(await inA.search("cats sleep", 5), []);
      await a.documents.put(doc("more", ["Cats in A too."]));
      assertEquals((await inB.search("cats", 5)).map((h) => h.document_id), ["cats"], "A's later write stays in A");
    } finally {
      inA.close();
      inB.close();
      inBase.close();
    }
    await base.close();
  });

  await t.step("retention: retain() on a view sweeps that tenant's finished trees only", async () => {
    const { base, a, b } = await fresh();
    a.tasks.retain(300);
    for (const store of [a, b]) {
      await store.tasks.create(task("old"));
      await store.tasks.create(task("running"));
      await store.tasks.step("old", { to: "done", event: { kind: "done", payload: { result: {} } } });
    }
    await sleep(450);
    assertEquals((await a.tasks.list({ limit: 10 })).tasks.map((x) => x.task_id), ["running"]);
    assertEquals(await a.events.range("task:old", 0), []);
    assertEquals((await b.tasks.list({ limit: 10 })).total, 2, "B has no retention");
    assertEquals(kinds(await b.events.range("task:old", 0)), ["done"]);
    await base.close();
  });

  await t.step("settings: the base's retain() and shareEvents() reach its views, earlier and later", async () => {
    const { base, a } = await fresh();
    base.tasks.retain(300);
    base.tasks.shareEvents({ session: true, global: false });
    const c = base.forTenant("C");
    for (const store of [a, c]) {
      await store.tasks.create(task("old"));
      await store.tasks.step("old", { to: "done", event: { kind: "done", payload: { result: {} } } });
      assertEquals(kinds(await store.events.range("session:s1", 0)), ["done"]);
      assertEquals(await store.events.range("global", 0), [], "the global channel is off");
    }
    await sleep(450);
    for (const store of [a, c]) assertEquals((await store.tasks.list({ limit: 10 })).total, 0);
    c.tasks.shareEvents({ session: true, global: true });
    await c.tasks.create(task("new"));
    await c.tasks.step("new", { event: { kind: "update", payload: { message: "m" } } });
    assertEquals(kinds(await c.events.range("global", 0)), ["update"], "a view's own setting is its own");
    await base.close();
  });

  await t.step("close: a view's close() keeps the store open; the base's ends every view's followers", async () => {
    const { base, a } = await fresh();
    await a.close();
    assertEquals(await a.tasks.create(task("t1")), true, "the view still answers");
    await base.ping();
    if (base.kind === "memory" || base.kind === "upstash") return void await base.close(); // nothing held open
    const controller = new AbortController();
    const iterator = a.events.followBatches("session:s1", 0, controller.signal)[Symbol.asyncIterator]();
    const next = iterator.next();
    await sleep(100); // attached (subscribed or not: the close ends it either way)
    await base.close();
    const ended = await Promise.race([
      next.then((r) => r.done || r.value.length === 0),
      sleep(5_000).then(() => "hung"),
    ]);
    controller.abort();
    assertEquals(ended, true, "the view's follower ends when the base closes");
  });
}

/** On a cluster: tenants' followers share the base's sharded subscribers (one per shard). */
async function clusterSteps(t: Deno.TestContext, cluster: RedisCluster) {
  await t.step("cluster: 10 tenants' followers on every shard share one subscriber connection per shard", async () => {
    const base = await openStore({ url: cluster.url, prefix: `tfollow-${crypto.randomUUID()}:` });
    const views = Array.from({ length: 10 }, (_, i) => base.forTenant(`t${i}`));
    const follows = views.flatMap((view, i) =>
      [`session:s${i}`, `session:x${i}`, "global"].map(async (channel) => ({
        view,
        channel,
        follower: firstEvent(view, channel, await view.events.last(channel)),
      }))
    );
    const started = await Promise.all(follows);
    const masters = await masterPorts(cluster);
    const subscribers = async () =>
      (await Promise.all(cluster.ports.map((port) => cluster.cli(port, "CLIENT", "LIST")))).map((list) =>
        list.split("\n").filter((line) => /\bssub=[1-9]/.test(line)).length
      );
    await until(
      "each master holding a followed channel has a subscriber",
      async () => (await subscribers()).filter((n) => n > 0).length === masters.length,
    );
    const perShard = await subscribers();
    assert(perShard.every((n) => n <= 1), `subscriber connections per node: ${perShard}`);
    for (const [i, view] of views.entries()) {
      for (const channel of [`session:s${i}`, `session:x${i}`, "global"]) {
        await view.events.append(channel, "note", { tenant: `t${i}` });
      }
    }
    for (const { view, channel, follower } of started) {
      const event = await follower.event;
      assertEquals([channel, event.data.tenant], [channel, `t${views.indexOf(view)}`]);
    }
    await base.close();
  });
}

testOnEveryStore("tenant isolation contract", contract, { cluster: clusterSteps, tenantView: false });

/** How many clients redis-server has, the asking one excluded. */
async function clientCount(port: number): Promise<number> {
  return (await redisCli(port, "CLIENT", "LIST")).trim().split("\n").length - 1;
}

async function redisCli(port: number, ...args: string[]): Promise<string> {
  const out = await new Deno.Command(requireTool("redis-cli"), { args: ["-p", String(port), ...args], stdout: "piped" })
    .output();
  return new TextDecoder().decode(out.stdout);
}

Deno.test("tenants on Redis: 20 views following channels share the base's one subscriber connection", {
  ignore: missingTools("redis-server", "redis-cli"),
}, async () => {
  await using redis = await startRedis();
  const base = await openStore({ url: redis.url, prefix: `conn-${crypto.randomUUID()}:` });
  await base.ping();
  const before = await clientCount(redis.port);
  const views = Array.from({ length: 20 }, (_, i) => base.forTenant(`tenant-${i}`));
  const started = await Promise.all(
    views.map(async (view) => firstEvent(view, "global", await view.events.last("global"))),
  );
  const root = firstEvent(base, "global", await base.events.last("global"));
  const numsub = async () =>
    (await redisCli(redis.port, "PUBSUB", "CHANNELS")).trim().split("\n").filter(Boolean).length;
  await until("21 channels subscribed", async () => await numsub() === 21);
  assertEquals(await clientCount(redis.port), before + 1, "one subscriber connection for the base and 20 tenants");
  for (const [i, view] of views.entries()) await view.events.append("global", "note", { tenant: i });
  await base.events.append("global", "note", { tenant: "base" });
  assertEquals(await Promise.all(started.map(async (f) => (await f.event).data.tenant)), views.map((_, i) => i));
  assertEquals((await root.event).data.tenant, "base");
  await until("every channel unsubscribed", async () => await numsub() === 0);
  await until("the subscriber connection closed", async () => await clientCount(redis.port) === before);
  await base.close();
  await until("the command connection closed", async () => await clientCount(redis.port) === before - 1);
});

Deno.test(
  "tenants on Redis: a tenant's keys are `<prefix>tenant:<tenant>:` before the hash tag; the base's unchanged",
  {
    ignore: missingTools("redis-server", "redis-cli"),
  },
  async () => {
    await using redis = await startRedis();
    const base = await openStore({ url: redis.url, prefix: "p:" });
    const acme = base.forTenant("acme");
    await base.tasks.create(task("t0"));
    await acme.tasks.create(task("t1"));
    await acme.queue.push("t1");
    await acme.documents.put(doc("d1", ["text"]));
    await acme.idempotency.claim("k", "f", 60_000);
    const keys = (await redisCli(redis.port, "KEYS", "*")).trim().split("\n").sort();
    const tenant = keys.filter((k) => k.startsWith("p:tenant:acme:"));
    const other = keys.filter((k) => !k.startsWith("p:tenant:acme:"));
    assert(tenant.some((k) => k.startsWith("p:tenant:acme:{t}:")), keys.join(" "));
    assert(tenant.some((k) => k.startsWith("p:tenant:acme:{d}:")), keys.join(" "));
    assert(tenant.includes("p:tenant:acme:idem:k"), keys.join(" "));
    assert(other.length > 0 && other.every((k) => k.startsWith("p:{t}:")), `the base's keys as before: ${other}`);
    await base.close();
  },
);

Deno.test("tenants on Redis: after the shared subscriber connection drops, every view's follower catches up", {
  ignore: missingTools("redis-server", "redis-cli"),
}, async () => {
  await using redis = await startRedis();
  const base = await openStore({ url: redis.url, prefix: `drop-${crypto.randomUUID()}:` });
  const views = ["A", "B", "C"].map((tenant) => base.forTenant(tenant));
  const controller = new AbortController();
  const iterators = views.map((view) =>
    view.events.followBatches("global", 0, controller.signal)[Symbol.asyncIterator]()
  );
  const firsts = iterators.map((iterator) => iterator.next());
  await until(
    "3 channels subscribed",
    async () => (await redisCli(redis.port, "PUBSUB", "CHANNELS")).trim().split("\n").filter(Boolean).length === 3,
  );
  // Kill the pub/sub connection and write at once: the messages are lost, only the reconnect's catch-up reads them.
  await redisCli(redis.port, "CLIENT", "KILL", "TYPE", "pubsub");
  for (const [i, view] of views.entries()) await view.events.append("global", "note", { tenant: i });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("a view's follower did not catch up within 10 s")), 10_000);
  });
  const batches = await Promise.race([Promise.all(firsts), late]).finally(() => clearTimeout(timer));
  assertEquals(batches.map((r) => r.value?.map((e: StoredEvent) => e.data.tenant)), [[0], [1], [2]]);
  controller.abort();
  await base.close();
});
