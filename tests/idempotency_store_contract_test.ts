import { assertEquals } from "../testing/assert.ts";
import { type OpenStore, testOnEveryStore } from "../testing/store_backends.ts";

/** Waits until `check()` holds (a key's expiry is the store's clock, not ours). */
async function eventually(check: () => Promise<boolean>, what: string) {
  const deadline = Date.now() + 5_000;
  while (!await check()) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The `idempotency` port's behaviour on every backend. */
async function contract(t: Deno.TestContext, open: OpenStore) {
  let n = 0;
  const fresh = async () => await open(`idem-${crypto.randomUUID()}-${n++}:`);

  await t.step(
    "claim: the first holds the key; later claims see its fingerprint and, once completed, its task",
    async () => {
      const store = await fresh();
      const keys = store.idempotency;
      assertEquals(await keys.claim("k", "f1", 60_000), undefined);
      assertEquals(await keys.claim("k", "f1", 60_000), { fingerprint: "f1" });
      assertEquals(await keys.claim("k", "f2", 60_000), { fingerprint: "f1" });
      assertEquals(await keys.complete("k", "f1", "task-1", 60_000), true);
      assertEquals(await keys.claim("k", "f1", 60_000), { fingerprint: "f1", taskId: "task-1" });
      assertEquals(await keys.claim("k", "f2", 60_000), { fingerprint: "f1", taskId: "task-1" });
      assertEquals(await keys.complete("k", "f1", "task-2", 60_000), false, "a completed key keeps its task");
      assertEquals(await keys.complete("other", "f1", "task-3", 60_000), false, "an unclaimed key is not completed");
      assertEquals(await keys.claim("other", "f1", 60_000), undefined);
      await store.close();
    },
  );

  await t.step("claim: concurrent claims of one key: exactly one holds it", async () => {
    const store = await fresh();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.idempotency.claim("race", `f${i}`, 60_000)),
    );
    assertEquals(outcomes.filter((o) => o === undefined).length, 1);
    const winner = `f${outcomes.indexOf(undefined)}`;
    for (const o of outcomes) if (o) assertEquals(o.fingerprint, winner);
    await store.close();
  });

  await t.step("release: drops the key of that fingerprint only", async () => {
    const store = await fresh();
    const keys = store.idempotency;
    await keys.claim("k", "f1", 60_000);
    await keys.release("k", "f2");
    assertEquals(await keys.claim("k", "f2", 60_000), { fingerprint: "f1" });
    await keys.release("k", "f1");
    assertEquals(await keys.claim("k", "f2", 60_000), undefined);
    await keys.complete("k", "f2", "t", 60_000);
    await keys.release("k", "f2");
    assertEquals(await keys.claim("k", "f3", 60_000), undefined, "a completed key is released too");
    await store.close();
  });

  await t.step("keys expire after their time; completing restarts it", async () => {
    const store = await fresh();
    const keys = store.idempotency;
    assertEquals(await keys.claim("short", "f", 50), undefined);
    await eventually(async () => await keys.claim("short", "g", 50) === undefined, "a claim expires");
    await keys.complete("short", "g", "t", 60_000);
    await new Promise((r) => setTimeout(r, 100));
    assertEquals(await keys.claim("short", "h", 50), { fingerprint: "g", taskId: "t" });
    await store.close();
  });

  await t.step("keys of any visible ASCII, and stores with different prefixes do not share them", async () => {
    const store = await fresh();
    const other = await fresh();
    const key = "{odd}:key*with[chars]!~" + "x".repeat(200);
    assertEquals(await store.idempotency.claim(key, "f", 60_000), undefined);
    assertEquals(await store.idempotency.claim(key, "g", 60_000), { fingerprint: "f" });
    assertEquals(await other.idempotency.claim(key, "g", 60_000), undefined);
    await store.close();
    await other.close();
  });
}

testOnEveryStore("idempotency store contract", contract);
