import { assert, assertEquals, assertMatch } from "../../testing/assert.ts";
import { startRedis } from "../../testing/redis_server.ts";
import { missingTools } from "../../testing/tools.ts";
import { createPipelineSource, MAX_QUERY_TERMS } from "../../lib/pipelines/mod.ts";
import { loadRuntime } from "../../lib/runtime/mod.ts";
import { createMemoryStore, openStore, type Store } from "../../lib/store/mod.ts";
import { testApp } from "../../testing/service.ts";

type Json = Record<string, unknown> & { [k: string]: unknown };

async function setup(store: Store, options: { sourceDir?: string; bodyLimitBytes?: number } = {}) {
  const fs = (await loadRuntime()).fs;
  const source = options.sourceDir ? createPipelineSource(fs, options.sourceDir) : undefined;
  const env: Record<string, string> = options.bodyLimitBytes
    ? { BODY_LIMIT_BYTES: String(options.bodyLimitBytes) }
    : {};
  const { app, service } = testApp({ store, source, env });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await app.request(path, {
      method,
      ...(body !== undefined && {
        headers: { "content-type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    });
    const text = await res.text();
    return {
      status: res.status,
      type: res.headers.get("content-type"),
      body: (text ? JSON.parse(text) : null) as Json,
    };
  };
  /** Submits and waits for the task's final event; returns the task. */
  const run = async (path: string, body?: unknown) => {
    const created = await call("POST", path, body);
    assertEquals(created.status, 201, JSON.stringify(created.body));
    const id = String(created.body.task_id);
    const signal = AbortSignal.timeout(20_000);
    for await (const event of store.events.follow(`task:${id}`, 0, signal)) {
      if (["done", "failed", "cancelled"].includes(event.kind)) break;
    }
    return (await call("GET", `/tasks/${id}`)).body;
  };
  return {
    call,
    run,
    [Symbol.asyncDispose]: () => service.close(),
  };
}

const docs = [
  {
    title: "Redis streams",
    content: "Streams keep events in order. Readers continue after an id.",
    source: "redis.md",
  },
  { title: "Cats", content: "Cats sleep most of the day. They like warm windows.", source: "cats.md" },
];
const fieldsOf = (body: Json) => (body.errors as { field: string }[]).map((e) => e.field);

async function suite(t: Deno.TestContext, open: () => Promise<Store>) {
  await t.step("POST /pipelines/run → 201 task_id; status and search see the documents", async () => {
    await using api = await setup(await open());
    const task = await api.run("/pipelines/run", { documents: docs, chunk_size: 200 });
    assertEquals([task.status, (task.result as Json).added], ["done", 2]);
    assert((task.updates as unknown[]).length >= 2);
    const status = await api.call("GET", "/pipelines/status");
    assertEquals(status.body.chunks, 2);
    assertEquals([status.body.documents, status.body.staged_chunks, status.body.state], [2, 0, "idle"]);
    assertEquals(status.body.last_task_id, task.task_id);
    const search = await api.call("GET", "/pipelines/search?q=streams&k=3");
    assertEquals(search.status, 200);
    const hits = search.body.hits as Json[];
    assertEquals([hits.length, hits[0].title, hits[0].source], [1, "Redis streams", "redis.md"]);
    assert(Number(hits[0].score) > 0 && String(hits[0].text).includes("Streams keep"));
  });

  await t.step("re-running unchanged documents adds nothing; a changed one replaces its chunks", async () => {
    await using api = await setup(await open());
    await api.run("/pipelines/run", { documents: docs, chunk_size: 200 });
    assertEquals(((await api.call("GET", "/pipelines/search?q=readers")).body.hits as unknown[]).length, 1);
    const again = await api.run("/pipelines/run", { documents: docs, chunk_size: 200 });
    assertEquals((again.result as Json).unchanged, 2);
    assertEquals((await api.call("GET", "/pipelines/status")).body.chunks, 2);
    const changed = await api.run("/pipelines/documents", { ...docs[0], content: "Now about lighthouses only." });
    assertEquals((changed.result as Json).replaced, 1);
    assertEquals(((await api.call("GET", "/pipelines/search?q=readers")).body.hits as unknown[]).length, 0);
    assertEquals(((await api.call("GET", "/pipelines/search?q=lighthouses")).body.hits as unknown[]).length, 1);
  });

  await t.step("POST /pipelines/clear → 200 cleared_chunks; search is empty after", async () => {
    await using api = await setup(await open());
    await api.run("/pipelines/run", { documents: docs, chunk_size: 200 });
    const cleared = await api.call("POST", "/pipelines/clear");
    assertEquals([cleared.status, cleared.body], [200, { cleared_chunks: 2 }]);
    assertEquals((await api.call("GET", "/pipelines/search?q=cats")).body.hits, []);
    assertEquals((await api.call("GET", "/pipelines/status")).body.chunks, 0);
  });

  await t.step("422 lists each invalid field", async () => {
    await using api = await setup(await open());
    const missing = await api.call("POST", "/pipelines/run", {
      documents: [{ source: "a" }, { title: " ", content: "x", source: "b" }],
      chunk_size: 5,
    });
    assertEquals([missing.status, missing.type], [422, "application/problem+json"]);
    assertEquals(fieldsOf(missing.body).sort(), [
      "chunk_size",
      "documents.0.content",
      "documents.0.title",
      "documents.1.title",
    ]);
    const empty = await api.call("POST", "/pipelines/run", { documents: [], chunk_size: 100_000 });
    assertEquals(fieldsOf(empty.body).sort(), ["chunk_size", "documents"]);
    assertMatch(JSON.stringify(empty.body), /documents must not be empty/);
    assertMatch(JSON.stringify(empty.body), /chunk_size must be at most 10000/);
    const doc = await api.call("POST", "/pipelines/documents", { title: "T" });
    assertEquals(fieldsOf(doc.body).sort(), ["content", "source"]);
    const search = await api.call("GET", "/pipelines/search?k=0");
    assertEquals([search.status, fieldsOf(search.body).sort()], [422, ["k", "q"]]);
  });

  await t.step(`a q of more than ${MAX_QUERY_TERMS} distinct terms is a 422 naming the limit`, async () => {
    await using api = await setup(await open());
    const terms = (n: number) => Array.from({ length: n }, (_, i) => `term${i}`).join(" ");
    const over = await api.call("GET", `/pipelines/search?q=${encodeURIComponent(terms(MAX_QUERY_TERMS + 1))}`);
    assertEquals([over.status, fieldsOf(over.body)], [422, ["q"]]);
    assertMatch(
      JSON.stringify(over.body),
      new RegExp(`q has ${MAX_QUERY_TERMS + 1} distinct terms; at most ${MAX_QUERY_TERMS} are searched`),
    );
    const atLimit = `${terms(MAX_QUERY_TERMS)} ${terms(MAX_QUERY_TERMS)}`; // repeats do not count
    assertEquals((await api.call("GET", `/pipelines/search?q=${encodeURIComponent(atLimit)}`)).status, 200);
  });

  await t.step("overlap of chunk_size/2 or more is a 422 on overlap, not silently clamped", async () => {
    await using api = await setup(await open());
    for (
      const [path, body] of [
        ["/pipelines/run", { documents: docs, chunk_size: 200, overlap: 100 }],
        ["/pipelines/documents", { ...docs[0], chunk_size: 200, overlap: 150 }],
        ["/pipelines/prepare", { overlap: 500 }],
        ["/pipelines/full", { chunk_size: 101, overlap: 51 }],
      ] as const
    ) {
      const res = await api.call("POST", path, body);
      assertEquals([res.status, fieldsOf(res.body)], [422, ["overlap"]], path);
      assertMatch(JSON.stringify(res.body), /overlap must be less than half of chunk_size/);
    }
    const direct = await api.call("POST", "/tasks", {
      kind: "pipeline_run",
      input: { documents: docs, chunk_size: 200, overlap: 100 },
    });
    assertEquals([direct.status, fieldsOf(direct.body)], [422, ["input.overlap"]]);
    const fine = await api.run("/pipelines/run", { documents: docs, chunk_size: 200, overlap: 99 });
    assertEquals(fine.status, "done");
  });

  await t.step("prepare, ingest and full over PIPELINE_SOURCE_DIR; escaping paths are 422", async () => {
    const base = await Deno.makeTempDir({ prefix: "storectl-routes-" });
    try {
      const root = `${base}/docs`;
      await Deno.mkdir(`${root}/sub`, { recursive: true });
      await Deno.writeTextFile(`${root}/a.md`, "# Alpha\nAlpha text about quasars.");
      await Deno.writeTextFile(`${root}/sub/b.txt`, "Beta text about pulsars.");
      await Deno.writeTextFile(`${base}/outside.md`, "secret");
      await Deno.symlink(`${base}/outside.md`, `${root}/link.md`);
      await using api = await setup(await open(), { sourceDir: root });
      const prepared = await api.run("/pipelines/prepare", { chunk_size: 300 });
      assertEquals((prepared.result as Json).prepared, 2);
      assert((prepared.updates as Json[]).some((u) => String(u.message).includes("link.md")));
      const status = (await api.call("GET", "/pipelines/status")).body;
      assertEquals([status.staged_chunks, status.source_folder], [2, true]);
      const ingested = await api.run("/pipelines/ingest");
      assertEquals((ingested.result as Json).ingested, 2);
      const hits = (await api.call("GET", "/pipelines/search?q=pulsars")).body.hits as Json[];
      assertEquals(hits.map((h) => h.source), ["sub/b.txt"]);
      const full = await api.run("/pipelines/full", { path: "sub" });
      assertEquals([full.status, (full.result as Json).unchanged], ["done", 1]);
      for (const path of ["../outside.md", "/etc/passwd", "sub/../../outside.md", "link.md", "missing"]) {
        for (const route of ["/pipelines/prepare", "/pipelines/full"]) {
          const refused = await api.call("POST", route, { path });
          assertEquals([refused.status, fieldsOf(refused.body)], [422, ["path"]], `${route} ${path}`);
        }
      }
    } finally {
      await Deno.remove(base, { recursive: true });
    }
  });

  await t.step(
    "prepare without PIPELINE_SOURCE_DIR is a 409 naming the variable; status says there is none",
    async () => {
      await using api = await setup(await open());
      assertEquals((await api.call("GET", "/pipelines/status")).body.source_folder, false);
      const res = await api.call("POST", "/pipelines/prepare");
      assertEquals(res.status, 409);
      assertMatch(String(res.body.detail), /PIPELINE_SOURCE_DIR/);
    },
  );

  await t.step("an oversize body is a 413 problem", async () => {
    await using api = await setup(await open(), { bodyLimitBytes: 1_000 });
    const res = await api.call("POST", "/pipelines/run", {
      documents: [{ title: "T", source: "s", content: "x ".repeat(1_000) }],
      chunk_size: 100,
    });
    assertEquals([res.status, res.type], [413, "application/problem+json"]);
  });

  await t.step("the routes are listed in /openapi.json", async () => {
    await using api = await setup(await open());
    const paths = Object.keys((await api.call("GET", "/openapi.json")).body.paths as Json);
    for (const p of ["run", "prepare", "ingest", "full", "documents", "clear", "status", "search"]) {
      assert(paths.includes(`/pipelines/${p}`), p);
    }
  });
}

Deno.test("pipeline routes on memory", (t) => suite(t, () => Promise.resolve(createMemoryStore())));

Deno.test("pipeline routes on Redis (real redis-server)", { ignore: missingTools("redis-server") }, async (t) => {
  await using redis = await startRedis();
  await suite(t, () => openStore({ url: redis.url, prefix: `r-${crypto.randomUUID()}:` }));
});
