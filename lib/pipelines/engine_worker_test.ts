import { assertEquals, assertRejects } from "../../testing/assert.ts";
import { loadRuntime } from "../runtime/mod.ts";
import { createBm25Engine } from "./bm25.ts";
import { createMiniSearchEngine, type IndexedChunk, type SearchEngine } from "./engine.ts";
import { type AsyncEngine, localEngine, remoteEngine, SEARCH_WORKER } from "./engine_worker.ts";

const runtime = await loadRuntime();
const words = ["harbour", "lighthouse", "keeper", "storm", "beacon", "tide", "signal", "rock"];

function chunks(count: number): IndexedChunk[] {
  let seed = 3;
  const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  return Array.from({ length: count }, (_, i) => ({
    id: `c${i}`,
    title: words[i % words.length],
    text: Array.from({ length: 12 }, () => words[Math.floor(rand() ** 2 * words.length)]).join(" "),
  }));
}

for (const [name, make] of [["compact", createBm25Engine], ["minisearch", createMiniSearchEngine]] as const) {
  Deno.test({
    name:
      `remoteEngine() with ${name} in a worker answers as the engine does in this thread, through removes and resets`,
    ignore: !runtime.startWorker,
    fn: () => sameAnswers(make, remoteEngine(runtime.startWorker!(SEARCH_WORKER), name)),
  });
}

/** `remote` answers as `make()`'s engine in this thread does, through adds, removes and a reset; then it is closed. */
async function sameAnswers(make: () => SearchEngine, remote: AsyncEngine) {
  const local = localEngine(make);
  try {
    const all = chunks(300);
    for (const engine of [local, remote]) {
      await engine.add(all.slice(0, 200));
      await engine.add(all.slice(200));
      await engine.remove(["c1", "c2", "c3"]);
    }
    for (const query of ["storm", "lighthouse keeper", "bea", "signel"]) {
      assertEquals(await remote.search(query, 7), await local.search(query, 7), query);
    }
    await remote.reset();
    assertEquals(await remote.search("storm", 7), []);
    for (const engine of [local, remote]) {
      await engine.reset();
      await engine.add(all.slice(0, 50));
    }
    assertEquals(await remote.search("storm signel", 7), await local.search("storm signel", 7), "after a reset");
  } finally {
    remote.close();
  }
}

Deno.test({
  name: "remoteEngine() rejects a call the worker failed, and the calls pending when closed",
  ignore: !runtime.startWorker,
  fn: async () => {
    const remote = remoteEngine(runtime.startWorker!(SEARCH_WORKER));
    await assertRejects(() => remote.add([null as unknown as IndexedChunk]), /The search worker failed: /);
    assertEquals(await remote.search("anything", 3), []); // still serving
    const pending = remote.search("storm", 3);
    remote.close();
    await assertRejects(() => pending, /The search worker was closed/);
  },
});
