import { assert, assertEquals } from "../../testing/assert.ts";
import { startRedis } from "../../testing/redis_server.ts";
import { missingTools } from "../../testing/tools.ts";
import { loadRuntime } from "../runtime/mod.ts";
import { createMemoryStore, openStore, type Store, type StoredEvent } from "../store/mod.ts";
import { createTaskRunner } from "../tasks/mod.ts";
import { documentId } from "./hash.ts";
import { createPipelineSource } from "./source.ts";
import { pipelineTasks } from "./tasks.ts";

async function finalEvents(store: Store, taskId: string, onEvent?: (e: StoredEvent) => void): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  const signal = AbortSignal.timeout(20_000);
  for await (const event of store.events.follow(`task:${taskId}`, 0, signal)) {
    out.push(event);
    onEvent?.(event);
    if (["done", "failed", "cancelled"].includes(event.kind)) break;
  }
  return out;
}

const doc = (i: number, words = 50) => ({
  title: `Doc ${i}`,
  source: `doc-${i}.md`,
  content: Array.from({ length: words }, (_, w) => `word${w} of document ${i}.`).join(" "),
});

async function behaviour(t: Deno.TestContext, open: () => Promise<Store>) {
  const setup = async (sourceDir?: string) => {
    const store = await open();
    const fs = (await loadRuntime()).fs;
    const source = sourceDir ? createPipelineSource(fs, sourceDir) : undefined;
    const runtime = createTaskRunner({
      store,
      definitions: pipelineTasks(store.documents, { source }),
      log: () => {},
    });
    const run = async (kind: string, input: unknown) => {
      const task = await runtime.submit({ kind, input });
      const events = await finalEvents(store, task.task_id);
      return { task, events, record: await store.tasks.get(task.task_id) };
    };
    return {
      store,
      runtime,
      run,
      async [Symbol.asyncDispose]() {
        await runtime.close();
        await store.close();
      },
    };
  };

  await t.step("pipeline_run ingests inline documents with progress; again is a no-op; a change replaces", async () => {
    await using s = await setup();
    const first = await s.run("pipeline_run", { documents: [doc(1), doc(2)], chunk_size: 200 });
    assertEquals(first.record?.status, "done");
    assertEquals(first.events.filter((e) => e.kind === "update").map((e) => String(e.data.message).split(":")[0]), [
      "document 1 of 2",
      "document 2 of 2",
    ]);
    assertEquals([first.record?.result?.added, first.record?.result?.documents], [2, 2]);
    // The documents are in the store now: the finished task keeps their count, not a second copy.
    assertEquals(first.record?.input, { documents: 2, chunk_size: 200, overlap: 0 });
    const status = await s.store.documents.status();
    assertEquals([status.documents, status.state, status.last_task_id], [2, "idle", first.task.task_id]);
    const again = await s.run("pipeline_run", { documents: [doc(1), doc(2)], chunk_size: 200 });
    assertEquals(again.record?.result?.unchanged, 2);
    assertEquals((await s.store.documents.status()).chunks, status.chunks);
    const changed = await s.run("pipeline_document", { ...doc(1, 5), source: "doc-1.md" });
    assertEquals(changed.record?.result?.replaced, 1);
    assertEquals(changed.record?.input, { title: doc(1).title, source: "doc-1.md", chunk_size: 1000, overlap: 0 });
    assert((await s.store.documents.status()).chunks < status.chunks);
  });

  await t.step("cancel during ingest leaves whole documents only", async () => {
    await using s = await setup();
    const docs = Array.from({ length: 300 }, (_, i) => doc(i, 80));
    const task = await s.runtime.submit({ kind: "pipeline_run", input: { documents: docs, chunk_size: 100 } });
    let cancelled = false;
    const events = await finalEvents(s.store, task.task_id, (e) => {
      if (e.kind === "update" && !cancelled) {
        cancelled = true;
        void s.runtime.cancel(task.task_id, true);
      }
    });
    assertEquals(events.at(-1)?.kind, "cancelled");
    await new Promise((r) => setTimeout(r, 200)); // the runner notices between documents
    const status = await s.store.documents.status();
    assert(status.documents > 0 && status.documents < docs.length, `${status.documents} documents`);
    const stored = await s.store.documents.documents(
      await Promise.all(docs.map((d) => documentId(d.source))),
    );
    const chunks = await s.store.documents.chunks(stored.flatMap((d) => d.chunk_ids));
    assertEquals(chunks.length, status.chunks); // every stored document has all its chunks, nothing else is there
    assertEquals(stored.every((d) => d.chunk_ids.length > 10), true);
    assertEquals(status.state, "cancelled");
  });

  await t.step("prepare stages the source folder; ingest moves it; full does both", async () => {
    const dir = await Deno.makeTempDir({ prefix: "storectl-pipeline-" });
    try {
      await Deno.writeTextFile(`${dir}/a.md`, "# Alpha\nAlpha text here.");
      await Deno.writeTextFile(`${dir}/b.txt`, "Beta text here.");
      await using s = await setup(dir);
      const prepared = await s.run("pipeline_prepare", {});
      assertEquals(prepared.record?.result, { prepared: 2, staged_chunks: 2, skipped: 0 });
      assertEquals((await s.store.documents.status()).staged_chunks, 2);
      const ingested = await s.run("pipeline_ingest", {});
      assertEquals([ingested.record?.result?.ingested, ingested.record?.result?.added], [2, 2]);
      const status = await s.store.documents.status();
      assertEquals([status.staged_chunks, status.documents, status.chunks], [0, 2, 2]);
      const full = await s.run("pipeline_full", { path: "a.md" });
      assertEquals([full.record?.result?.prepared, full.record?.result?.unchanged], [1, 1]);
      const escaped = await s.run("pipeline_prepare", { path: "../x" });
      assertEquals(escaped.record?.status, "failed");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("pipeline tasks on memory", (t) => behaviour(t, () => Promise.resolve(createMemoryStore())));

Deno.test("pipeline tasks on Redis (real redis-server)", { ignore: missingTools("redis-server") }, async (t) => {
  await using redis = await startRedis();
  await behaviour(t, () => openStore({ url: redis.url, prefix: `p-${crypto.randomUUID()}:` }));
});
