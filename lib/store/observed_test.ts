import { assert, assertEquals } from "../../testing/assert.ts";
import { createMemoryStore, observeStore, StoreUnavailableError } from "./mod.ts";

Deno.test("observeStore: each call answering with a promise is told by family, tenant views too; the answers are the store's", async () => {
  const seen: string[] = [];
  const settled: Promise<unknown>[] = [];
  const store = observeStore(createMemoryStore(), (family, startedAt, answer) => {
    assert(startedAt <= performance.now());
    seen.push(family);
    settled.push(answer);
  });
  const id = store.tasks.newRootId("s1"); // answers at once: not observed
  const task = { task_id: id, kind: "demo", session_id: "s1", metadata: {}, input: {} };
  assertEquals(await store.tasks.create(task), true);
  assertEquals((await store.tasks.get(id))?.task_id, id);
  await store.hitSlidingWindow("k", 1, 1_000);
  const acme = store.forTenant("acme");
  assertEquals(acme, store.forTenant("acme"), "one view per tenant");
  assertEquals(await acme.tasks.get(id), undefined, "the tenant's own tasks");
  await acme.events.last("task:x");
  assertEquals(seen, ["tasks.create", "tasks.get", "hitSlidingWindow", "tasks.get", "events.last"]);
  assertEquals(store.kind, "memory");
  await Promise.all(settled);
});

Deno.test("observeStore: a failed call is told with its rejection, and the caller still gets it", async () => {
  const base = createMemoryStore();
  const failing = { ...base, ping: () => Promise.reject(new StoreUnavailableError("the store does not answer")) };
  const outcomes: string[] = [];
  const store = observeStore(failing, (family, _at, answer) => {
    answer.then(() => outcomes.push(`${family} ok`), (e: Error) => outcomes.push(`${family} failed: ${e.message}`));
  });
  const error = await store.ping().catch((e: Error) => e);
  assert(error instanceof StoreUnavailableError);
  await Promise.resolve();
  assertEquals(outcomes.length, 1);
  assert(outcomes[0].startsWith("ping failed:"), outcomes[0]);
});
