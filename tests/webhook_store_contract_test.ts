import { assert, assertEquals } from "../testing/assert.ts";
import { type OpenStore, testOnEveryStore } from "../testing/store_backends.ts";
import type { NewDelivery, Webhook } from "../lib/store/mod.ts";
import { WEBHOOK_LIMITS } from "../lib/store/mod.ts";

const hook = (id: string, narrow: Partial<Pick<Webhook, "task_id" | "session_id">> = {}): Webhook => ({
  id,
  url: `https://receiver.example/${id}`,
  events: ["done"],
  secret: "whsec_c2VjcmV0",
  created_at: "2026-11-28T00:00:00.000Z",
  ...narrow,
});
const delivery = (id: string, webhookId: string): NewDelivery => ({
  id,
  webhook_id: webhookId,
  task_id: "t1",
  event: "done",
  created_at: "2026-11-28T00:00:00.000Z",
  body: `{"type":"task.done","n":"${id}"}`,
});
const attempt = (ok: boolean, status: number) => ({ at: new Date().toISOString(), ok, status, ms: 3 });

/** The `webhooks` port's behaviour on every backend. */
async function contract(t: Deno.TestContext, open: OpenStore) {
  let n = 0;
  const fresh = async () => await open(`wh-${crypto.randomUUID()}-${n++}:`);

  await t.step("subscriptions: add, get, list, match by task, session or tenant, remove", async () => {
    const store = await fresh();
    const hooks = store.webhooks;
    assert(await hooks.add(hook("all")));
    assert(await hooks.add(hook("task", { task_id: "t1" })));
    assert(await hooks.add(hook("session", { session_id: "s1" })));
    assert(await hooks.add(hook("other-task", { task_id: "t2" })));
    assertEquals((await hooks.get("task"))?.task_id, "t1");
    assertEquals(await hooks.get("none"), undefined);
    assertEquals((await hooks.list()).map((w) => w.id), ["all", "task", "session", "other-task"]);
    const ids = async (task: string, session: string) => (await hooks.matching(task, session)).map((w) => w.id).sort();
    assertEquals(await ids("t1", "s1"), ["all", "session", "task"]);
    assertEquals(await ids("t3", "s9"), ["all"]);
    assertEquals(await hooks.remove("session"), true);
    assertEquals(await hooks.remove("session"), false);
    assertEquals(await ids("t1", "s1"), ["all", "task"]);
    await store.close();
  });

  await t.step("fan-out: one consumer holds the lease; deliveries are stored once, with the position", async () => {
    const store = await fresh();
    const hooks = store.webhooks;
    await hooks.add(hook("w"));
    assertEquals(await hooks.claimFanOut("a", 60_000), 0);
    assertEquals(await hooks.claimFanOut("b", 60_000), undefined, "a holds it");
    assertEquals(await hooks.fannedOut("b", 5, [delivery("d0", "w")]), false, "b may not fan out");
    assertEquals(
      await hooks.fannedOut("a", 3, [delivery("d1", "w"), delivery("d2", "w"), delivery("x", "gone")]),
      true,
    );
    assertEquals(await hooks.fannedOut("a", 4, [delivery("d1", "w")]), true, "d1 again: stored once");
    assertEquals(await hooks.claimFanOut("a", 60_000), 4);
    assertEquals((await hooks.deliveries("w")).map((d) => [d.id, d.state, d.attempts.length]), [
      ["d2", "pending", 0],
      ["d1", "pending", 0],
    ]);
    assertEquals(await hooks.deliveries("gone"), [], "no subscription, no delivery");
    await store.close();
  });

  await t.step("a lease that runs out lets another consumer fan out from the same position", async () => {
    const store = await fresh();
    assertEquals(await store.webhooks.claimFanOut("a", 50), 0);
    await store.webhooks.fannedOut("a", 7, []);
    let position: number | undefined;
    const deadline = Date.now() + 5_000;
    while ((position = await store.webhooks.claimFanOut("b", 60_000)) === undefined && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assertEquals(position, 7);
    await store.close();
  });

  await t.step("take leases due deliveries; finish records attempts: retried, delivered, failed", async () => {
    const store = await fresh();
    const hooks = store.webhooks;
    await hooks.add(hook("w"));
    await hooks.claimFanOut("a", 60_000);
    await hooks.fannedOut("a", 1, [delivery("d1", "w"), delivery("d2", "w")]);
    const now = Date.now() + 1_000;
    const taken = await hooks.take(now, 30_000, 10);
    assertEquals(taken.map((d) => d.id).sort(), ["d1", "d2"]);
    assertEquals(taken.find((d) => d.id === "d1")!.body, '{"type":"task.done","n":"d1"}');
    assertEquals(await hooks.take(now, 30_000, 10), [], "leased: not due again");
    assertEquals((await hooks.take(now + 31_000, 30_000, 1)).length, 1, "a lease that runs out makes it due");
    await hooks.finish("d1", attempt(false, 500), { retryAt: now + 5_000 });
    await hooks.finish("d2", attempt(true, 200), { delivered: true });
    assertEquals((await hooks.take(now + 5_000, 30_000, 10)).map((d) => d.id), ["d1"]);
    await hooks.finish("d1", attempt(false, 410), { failed: true });
    const [d2, d1] = await hooks.deliveries("w");
    assertEquals([d1.state, d1.attempts.map((a) => a.status), d1.next_at], ["failed", [500, 410], undefined]);
    assertEquals([d2.state, d2.attempts.map((a) => a.status)], ["delivered", [200]]);
    assertEquals(await hooks.take(now + 100_000, 30_000, 10), []);
    assertEquals(await hooks.redeliver("w", "d1", now), true);
    assertEquals(await hooks.redeliver("other", "d1", now), false, "another subscription's delivery");
    assertEquals((await hooks.take(now, 30_000, 10)).map((d) => [d.id, d.state]), [["d1", "pending"]]);
    await hooks.finish("gone", attempt(true, 200), { delivered: true }); // nothing, no error
    await store.close();
  });

  await t.step("limits: subscriptions per tenant, deliveries kept per subscription, removal takes them", async () => {
    const store = await fresh();
    const hooks = store.webhooks;
    await hooks.add(hook("w"));
    await hooks.claimFanOut("a", 60_000);
    const many = Array.from({ length: WEBHOOK_LIMITS.deliveries + 5 }, (_, i) => delivery(`d${i}`, "w"));
    await hooks.fannedOut("a", 1, many);
    const kept = await hooks.deliveries("w");
    assertEquals(kept.length, WEBHOOK_LIMITS.deliveries);
    assertEquals(kept.at(-1)!.id, "d5", "the oldest went first");
    assertEquals((await hooks.take(Date.now() + 1_000, 30_000, 1_000)).length, WEBHOOK_LIMITS.deliveries);
    await hooks.remove("w");
    assertEquals(await hooks.take(Date.now() + 100_000, 30_000, 1_000), [], "its pending deliveries went with it");
    await store.close();
  });
}

testOnEveryStore("webhook store contract", contract);
