import { assert, assertEquals } from "../../testing/assert.ts";
import { startRedis } from "../../testing/redis_server.ts";
import { missingTools } from "../../testing/tools.ts";
import { until } from "../../testing/until.ts";
import { createMemoryStore, openStore, type Store } from "../store/mod.ts";
import { prepareDocument } from "./tasks.ts";
import { MAX_QUERY_TERMS } from "./bm25.ts";
import { createSearchIndex } from "./search.ts";
import { remoteEngine, SEARCH_WORKER } from "./engine_worker.ts";
import type { EngineName } from "./engine.ts";
import { loadRuntime } from "../runtime/mod.ts";

const runtime = await loadRuntime();
/** How an index is built: its engine, and whether in a worker thread. */
type Variant = "compact" | "minisearch" | "compact in a worker" | "minisearch in a worker";
const options = (variant: Variant) => {
  const [engine, where] = variant.split(" in a ") as ["compact" | "minisearch", string | undefined];
  return where
    ? { engine, worker: (name: EngineName) => remoteEngine(runtime.startWorker!(SEARCH_WORKER), name) }
    : { engine };
};

const put = async (store: Store, source: string, title: string, content: string) =>
  await store.documents.put(await prepareDocument({ source, title, content }, { chunk_size: 200, overlap: 0 }));

async function behaviour(t: Deno.TestContext, open: () => Promise<Store>) {
  const variants: Variant[] = ["compact", "minisearch"];
  if (runtime.startWorker) variants.push("compact in a worker", "minisearch in a worker");
  for (const variant of variants) await engineBehaviour(t, open, variant);
}

async function engineBehaviour(t: Deno.TestContext, open: () => Promise<Store>, engine: Variant) {
  await t.step(
    `${engine}: ranks matching chunks with their titles, sources and texts; prefix and fuzzy match`,
    async () => {
      const store = await open();
      const index = createSearchIndex(store, options(engine));
      await put(store, "redis.md", "Redis streams", "Streams keep events in order. Consumers read after an id.");
      await put(store, "cats.md", "Cats", "Cats sleep most of the day. They like warm places.");
      const [hit] = await index.search("streams", 5);
      assertEquals([hit.title, hit.source, hit.text.startsWith("Streams keep")], ["Redis streams", "redis.md", true]);
      assert(hit.score > 0);
      assertEquals((await index.search("consum", 5)).map((h) => h.source), ["redis.md"]); // prefix
      assertEquals((await index.search("plases", 5)).map((h) => h.source), ["cats.md"]); // fuzzy
      assertEquals(await index.search("zebra", 5), []);
      index.close();
      await store.close();
    },
  );

  await t.step(
    `${engine}: a query's first ${MAX_QUERY_TERMS} distinct terms are searched, not the ones after`,
    async () => {
      const store = await open();
      const index = createSearchIndex(store, options(engine));
      const terms = Array.from({ length: MAX_QUERY_TERMS + 8 }, (_, i) => `q${i}`);
      for (const term of terms) await put(store, `${term}.md`, "Term", `Only ${term} here.`);
      const hits = await index.search([...terms.slice(0, 3), ...terms].join(" "), 100);
      assertEquals(hits.map((h) => h.source).sort(), terms.slice(0, MAX_QUERY_TERMS).map((t) => `${t}.md`).sort());
      index.close();
      await store.close();
    },
  );

  await t.step(`${engine}: a replaced document's old chunks leave the index; clear empties it`, async () => {
    const store = await open();
    const index = createSearchIndex(store, options(engine));
    await put(store, "a.md", "A", "Original wording about lighthouses.");
    assertEquals((await index.search("lighthouses", 5)).length, 1);
    await put(store, "a.md", "A", "New wording about harbours.");
    assertEquals(await index.search("lighthouses", 5), []);
    assertEquals((await index.search("harbours", 5)).length, 1);
    await store.documents.clear();
    assertEquals(await index.search("harbours", 5), []);
    assertEquals(index.stats().chunks, 0);
    index.close();
    await store.close();
  });
}

Deno.test("createSearchIndex() over memory", (t) => behaviour(t, () => Promise.resolve(createMemoryStore())));

Deno.test(
  "createSearchIndex() over Redis: two indexes on separate connections answer the same after a write through one",
  { ignore: missingTools("redis-server") },
  async (t) => {
    await using redis = await startRedis();
    await behaviour(t, () => openStore({ url: redis.url, prefix: `s-${crypto.randomUUID()}:` }));
    await t.step("two processes", async () => {
      const prefix = `two-${crypto.randomUUID()}:`;
      const [a, b] = [await openStore({ url: redis.url, prefix }), await openStore({ url: redis.url, prefix })];
      const [ia, ib] = [createSearchIndex(a), createSearchIndex(b)];
      assertEquals(await ib.search("quartz", 3), []); // b has caught up before the write
      for (let i = 0; i < 20; i++) {
        await put(a, `d${i}.md`, `Doc ${i}`, `Quartz crystals ${"grow ".repeat(i + 1)}slowly.`);
      }
      const expected = await ia.search("quartz grow", 10);
      assertEquals(expected.length, 10);
      assertEquals(await ib.search("quartz grow", 10), expected);
      ia.close();
      ib.close();
      await a.close();
      await b.close();
    });
  },
);

Deno.test(
  "createSearchIndex() over a Redis restarted empty finds every new document, whether they reach past the index's position or not",
  { ignore: missingTools("redis-server") },
  async () => {
    await using redis = await startRedis();
    const store = await openStore({ url: redis.url, prefix: `restart-${crypto.randomUUID()}:` });
    const index = createSearchIndex(store);
    try {
      for (let i = 0; i < 8; i++) await put(store, `old-${i}.md`, `Old ${i}`, `Walnut ledger ${i}.`);
      assertEquals((await index.search("walnut", 20)).length, 8);
      await redis.stop();
      await redis.start(); // empty: the documents and the change stream are gone
      await until("the store answers after the restart", () => store.ping().then(() => true, () => false));
      for (let i = 0; i < 12; i++) await put(store, `new-${i}.md`, `New ${i}`, `Chestnut almanac ${i}.`);
      const found = (await index.search("chestnut", 20)).map((h) => h.source).sort();
      assertEquals(found, Array.from({ length: 12 }, (_, i) => `new-${i}.md`).sort());
      assertEquals(await index.search("walnut", 20), []);
      assertEquals(index.stats().documents, 12);
      // Restarted empty again, and written less than before: the stream now ends below the index's position.
      await redis.stop();
      await redis.start();
      await until("the store answers after the second restart", () => store.ping().then(() => true, () => false));
      for (let i = 0; i < 3; i++) await put(store, `late-${i}.md`, `Late ${i}`, `Hazel atlas ${i}.`);
      assertEquals((await index.search("hazel", 20)).length, 3);
      assertEquals(index.stats().documents, 3);
    } finally {
      index.close();
      await store.close();
    }
  },
);

Deno.test("start(): while nothing changes the index looks less and less often, down to every 8 intervals; a change brings it back", async () => {
  const store = createMemoryStore();
  const looks: number[] = [];
  const documents = {
    ...store.documents,
    changes: (
      ...a: Parameters<Store["documents"]["changes"]>
    ) => (looks.push(performance.now()), store.documents.changes(...a)),
  };
  const index = createSearchIndex({ documents });
  const intervalMs = 100;
  const wait = async (until: () => boolean) => {
    while (!until()) await new Promise((resolve) => setTimeout(resolve, intervalMs / 2));
  };
  try {
    index.start(intervalMs);
    await wait(() => looks.length >= 5);
    const gaps = looks.slice(1, 5).map((at, i) => at - looks[i]);
    // Each look that finds nothing doubles the wait, up to 8 intervals. Late timers only lengthen a gap: the lower
    // bounds hold on a loaded machine, and the upper ones are generous.
    [2, 4, 8, 8].forEach((factor, i) => assert(gaps[i] >= factor * intervalMs * 0.9, `gaps ${gaps}`));
    assert(gaps.slice(2).every((gap) => gap < 8 * intervalMs + 1_000), `looks stop at every 8: gaps ${gaps}`);
    await put(store, "a.md", "A", "Alpha beta gamma.");
    await wait(() => index.stats().documents === 1); // found by a background look, no search asked
    const found = looks.length;
    await wait(() => looks.length >= found + 1);
    assert(looks[found] - looks[found - 1] < 8 * intervalMs, "a change brings the looks back to every interval");
  } finally {
    index.close();
    await store.close();
  }
});
