import { assert, assertEquals } from "../testing/assert.ts";
import { type DocumentStore, type NewDocument, openStore } from "../lib/store/mod.ts";
import type { RedisCluster } from "../testing/redis_cluster.ts";
import { masterPorts, type OpenStore, testOnEveryStore } from "../testing/store_backends.ts";

const doc = (id: string, hash: string, chunks: string[], source = `${id}.md`): NewDocument => ({
  id,
  title: `Title ${id}`,
  source,
  hash,
  chunks,
});

/** A store's changes after `after`, each checked to carry the time it was written (in this test), then without it. */
async function changesOf(documents: DocumentStore, after: number, since: number) {
  return (await documents.changes(after)).map(({ at, ...change }) => {
    const written = Date.parse(at ?? "");
    assert(written >= since && written <= Date.now(), `change ${change.id} written at ${at}, not during the test`);
    return change;
  });
}

/** The `documents` port's behaviour on every backend. */
async function contract(t: Deno.TestContext, open: OpenStore) {
  let n = 0;
  const since = Date.now();
  const fresh = async () => (await open(`docs-${crypto.randomUUID()}-${n++}:`));

  await t.step("put adds a document with its chunks and one change", async () => {
    const store = await fresh();
    const { documents } = store;
    assertEquals(await documents.put(doc("a-1", "abcdef0123", ["One.", "Two."])), {
      status: "added",
      chunks: 2,
      removed: 0,
    });
    const [a] = await documents.documents(["a-1", "missing"]);
    assertEquals([a.id, a.title, a.source, a.hash, a.chunk_ids], [
      "a-1",
      "Title a-1",
      "a-1.md",
      "abcdef0123",
      ["a-1-abcdef01-0", "a-1-abcdef01-1"],
    ]);
    assertEquals(await documents.chunks([...a.chunk_ids, "nope-00000000-0"]), [
      { id: "a-1-abcdef01-0", document_id: "a-1", index: 0, text: "One." },
      { id: "a-1-abcdef01-1", document_id: "a-1", index: 1, text: "Two." },
    ]);
    assertEquals(await changesOf(documents, 0, since), [{ id: 1, op: "put", document_id: "a-1", removed: [] }]);
    const status = await documents.status();
    assertEquals([status.chunks, status.documents, status.staged_chunks, status.state], [2, 1, 0, "idle"]);
    await store.close();
  });

  await t.step("the same source and hash again is a no-op; a changed one replaces its chunks", async () => {
    const store = await fresh();
    const { documents } = store;
    await documents.put(doc("a", "11111111aa", ["x", "y", "z"]));
    assertEquals(await documents.put(doc("a", "11111111aa", ["x", "y", "z"])), {
      status: "unchanged",
      chunks: 3,
      removed: 0,
    });
    assertEquals((await documents.changes(0)).length, 1);
    assertEquals(await documents.put(doc("a", "22222222bb", ["new"])), { status: "replaced", chunks: 1, removed: 3 });
    assertEquals(await documents.chunks(["a-11111111-0", "a-11111111-1", "a-11111111-2"]), []);
    assertEquals((await documents.chunks(["a-22222222-0"])).map((c) => c.text), ["new"]);
    assertEquals(await changesOf(documents, 1, since), [
      { id: 2, op: "put", document_id: "a", removed: ["a-11111111-0", "a-11111111-1", "a-11111111-2"] },
    ]);
    assertEquals((await documents.status()).chunks, 1);
    await store.close();
  });

  await t.step("a document of 9,000 chunks goes in whole and is replaced whole", async () => {
    const store = await fresh();
    const texts = Array.from({ length: 9_000 }, (_, i) => `chunk ${i}.`);
    assertEquals((await store.documents.put(doc("big", "aaaaaaaa00", texts))).chunks, 9_000);
    assertEquals((await store.documents.status()).chunks, 9_000);
    assertEquals((await store.documents.put(doc("big", "bbbbbbbb00", ["one"]))).removed, 9_000);
    assertEquals((await store.documents.status()).chunks, 1);
    await store.close();
  });

  await t.step(
    "staging: stage replaces by source, staged lists oldest first, put with unstage empties it",
    async () => {
      const store = await fresh();
      const { documents } = store;
      assertEquals(await documents.stage([doc("a", "1", ["a1", "a2"]), doc("b", "2", ["b1"])]), 3);
      assertEquals(await documents.stage([doc("a", "3", ["a1"])]), 2); // same source: replaced
      assertEquals((await documents.staged(10)).map((d) => [d.id, d.hash, d.chunks]), [
        ["b", "2", ["b1"]],
        ["a", "3", ["a1"]],
      ]);
      assertEquals((await documents.staged(1)).length, 1);
      await documents.put(doc("b", "2", ["b1"]), { unstage: true });
      assertEquals((await documents.status()).staged_chunks, 1);
      assertEquals((await documents.staged(10)).map((d) => d.id), ["a"]);
      await store.close();
    },
  );

  await t.step("setState records the state, the task and the time", async () => {
    const store = await fresh();
    await store.documents.setState("ingesting", "t-1");
    const status = await store.documents.status();
    assertEquals([status.state, status.last_task_id, typeof status.updated_at], ["ingesting", "t-1", "string"]);
    await store.close();
  });

  await t.step(
    "clear removes everything, answers the chunks removed, and restarts the stream with `clear`",
    async () => {
      const store = await fresh();
      const { documents } = store;
      await documents.put(doc("a", "1", ["x", "y"]));
      await documents.put(doc("b", "2", ["z"]));
      await documents.stage([doc("c", "3", ["w"])]);
      assertEquals(await documents.clear(), 3);
      const status = await documents.status();
      assertEquals([status.chunks, status.documents, status.staged_chunks], [0, 0, 0]);
      assertEquals(await changesOf(documents, 0, since), [{ id: 3, op: "clear" }]);
      assertEquals(await documents.changes(3), []);
      assertEquals(await documents.put(doc("a", "1", ["x", "y"])), { status: "added", chunks: 2, removed: 0 });
      assertEquals((await documents.changes(3)).map((c) => [c.id, c.op]), [[4, "put"]]);
      await store.close();
    },
  );

  await t.step("changes pages with a limit", async () => {
    const store = await fresh();
    for (let i = 0; i < 5; i++) await store.documents.put(doc(`d${i}`, "1", ["x"]));
    assertEquals((await store.documents.changes(1, 2)).map((c) => c.id), [2, 3]);
    assertEquals((await store.documents.changes(4)).map((c) => c.id), [5]);
    await store.close();
  });
}

testOnEveryStore("document store contract", contract, { cluster: clusterSteps });

/** What only a cluster shows: how the data spreads over the masters. */
async function clusterSteps(t: Deno.TestContext, cluster: RedisCluster) {
  await t.step("cluster: documents and their chunks spread over every master by id", async () => {
    const prefix = `docs-spread-${crypto.randomUUID()}:`;
    const store = await openStore({ url: cluster.url, prefix });
    const ids = Array.from({ length: 40 }, (_, i) => `doc-${i}`);
    for (const id of ids) await store.documents.put(doc(id, "0123456789", [`${id} one.`, `${id} two.`]));
    for (const port of await masterPorts(cluster)) {
      const keys = (await cluster.cli(port, "--scan", "--pattern", `${prefix}*`)).trim().split("\n");
      assertEquals(keys.some((k) => k.endsWith(":chunks")), true, `no chunks on the master at ${port}: ${keys}`);
    }
    const found = await store.documents.documents([...ids].reverse());
    assertEquals(found.map((d) => d.id), [...ids].reverse());
    const chunks = await store.documents.chunks(found.flatMap((d) => d.chunk_ids));
    assertEquals(chunks.length, 80);
    assertEquals(chunks[0].text, "doc-39 one.");
    const status = await store.documents.status();
    assertEquals([status.documents, status.chunks], [40, 80]);
    assertEquals((await store.documents.changes(0)).map((c) => c.document_id), ids);
    assertEquals(await store.documents.clear(), 80);
    assertEquals(await store.documents.documents(ids), []);
    await store.close();
  });
}
