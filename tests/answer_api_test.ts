import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { fixedRetriever } from "../testing/answer_fixtures.ts";
import { startLlmStandIn } from "../testing/llm_standin.ts";
import { startRedis } from "../testing/redis_server.ts";
import { sseEvents, type SseFrame } from "../testing/sse.ts";
import { missingTools } from "../testing/tools.ts";
import type { LlmConfig } from "../lib/answer/mod.ts";
import { createMemoryStore, openStore, type Store } from "../lib/store/mod.ts";

import { taskDefinitions } from "../server/mod.ts";
import { testApp } from "../testing/service.ts";

/** The service with the `answer` kinds over the fixed chunks, driven through its HTTP API. */
function setup(store: Store, llm?: LlmConfig) {
  const { app, service } = testApp({ store, retriever: fixedRetriever(), configure: (config) => ({ ...config, llm }) });
  const json = (method: string, path: string, body?: unknown) =>
    app.request(path, {
      method,
      ...(body !== undefined && { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
  return {
    app,
    json,
    async ask(input: Record<string, unknown>): Promise<string> {
      const res = await json("POST", "/tasks", { kind: "answer", input });
      assertEquals(res.status, 201);
      return (await res.json()).task_id;
    },
    /** The task's frames until it ends (or `until` says stop); replay from the start. */
    async frames(id: string, until?: (f: SseFrame) => boolean, after?: string): Promise<SseFrame[]> {
      const res = await app.request(`/tasks/${id}/stream`, { headers: after ? { "last-event-id": after } : {} });
      assertEquals(res.status, 200);
      return await sseEvents(res.body!, until && ((f) => until(f)));
    },
    [Symbol.asyncDispose]: () => service.close(),
  };
}

const tokens = (frames: SseFrame[]) => frames.filter((f) => f.event === "token").map((f) => f.data?.message);

async function suite(t: Deno.TestContext, open: () => Promise<Store>) {
  await t.step("answer: a retrieve child, tokens over SSE, then done with answer and sources", async () => {
    await using s = setup(await open());
    const id = await s.ask({ question: "How does Redis write snapshots?", k: 3 });
    const frames = await s.frames(id);
    const kinds = frames.map((f) => f.event);
    assertEquals(kinds.slice(0, 2), ["subtask_spawned", "subtask_done"]);
    assertEquals(kinds.at(-1), "done");
    const done = frames.at(-1)!.data!;
    const answer = "Redis keeps its data in memory. It writes snapshots to disk for persistence. [1]";
    assertEquals(done, {
      task_id: id,
      result: { answer, sources: [{ title: "Redis basics", source: "docs/redis.md", chunk_id: "redis-1", score: 3 }] },
    });
    assertEquals(tokens(frames).join(""), answer);
    assertEquals(tokens(frames).length, answer.split(" ").length);

    const children = await (await s.json("GET", `/tasks/${id}/children`)).json();
    assertEquals(children.children.length, 1);
    const [child] = children.children;
    assertEquals([child.spawn_key, child.status], ["retrieve", "done"]);
    assertEquals(child.result.hits.map((h: { chunk_id: string }) => h.chunk_id), ["redis-1"]);
    const task = await (await s.json("GET", `/tasks/${id}`)).json();
    assertEquals([task.kind, task.status, task.result.answer], ["answer", "done", answer]);
  });

  await t.step("answer: nothing matches → input_required; POST input resumes it with retrieve-2", async () => {
    await using s = setup(await open());
    const id = await s.ask({ question: "Who won the match?" });
    const asked = await s.frames(id, (f) => f.event === "input_required");
    assertMatch(String(asked.at(-1)?.data?.prompt), /^No document matches "Who won the match\?"\. Rephrase/);
    assertEquals((await (await s.json("GET", `/tasks/${id}`)).json()).status, "input_required");

    const res = await s.json("POST", `/tasks/${id}/input`, { input: "What does the sliding window count?" });
    assertEquals(res.status, 200);
    const frames = await s.frames(id, undefined, asked.at(-1)?.id);
    assertEquals(frames.at(-1)?.event, "done");
    const result = frames.at(-1)?.data?.result as { sources: { chunk_id: string }[] };
    assertEquals(result.sources.map((x) => x.chunk_id), ["limits-1"]);
    const children = (await (await s.json("GET", `/tasks/${id}/children`)).json()).children;
    assertEquals(children.map((c: { spawn_key: string; status: string }) => [c.spawn_key, c.status]), [
      ["retrieve", "done"],
      ["retrieve-2", "done"],
    ]);
  });

  await t.step("answer: a bad input is a 422 naming the field", async () => {
    await using s = setup(await open());
    const res = await s.json("POST", "/tasks", { kind: "answer", input: { question: "", k: 50 } });
    assertEquals(res.status, 422);
    const problem = await res.json();
    assertEquals(problem.errors.map((e: { field: string }) => e.field).sort(), ["input.k", "input.question"]);
  });

  await t.step("answer with a model: the stand-in's deltas arrive as tokens, then done", async () => {
    await using llm = await startLlmStandIn({
      deltas: ["Redis", " keeps", " data", " in memory", " [1]."],
      apiKey: "sk-k",
    });
    await using s = setup(await open(), { baseUrl: llm.url, model: "standin", apiKey: "sk-k" });
    const id = await s.ask({ question: "Where does Redis keep data?" });
    const frames = await s.frames(id);
    assertEquals(tokens(frames), ["Redis", " keeps", " data", " in memory", " [1]."]);
    const result = frames.at(-1)?.data?.result as { answer: string; sources: { chunk_id: string }[] };
    assertEquals(result.answer, "Redis keeps data in memory [1].");
    assertEquals(result.sources.map((x) => x.chunk_id), ["redis-1"]);
    assertEquals(llm.requests.map((r) => [r.authorization, r.completed]), [["Bearer sk-k", true]]);
  });

  await t.step("answer with a model: cancel closes the stand-in's connection and the task ends cancelled", async () => {
    const deltas = Array.from({ length: 40 }, (_, i) => ` w${i}`);
    await using llm = await startLlmStandIn({ deltas, delayMs: 1_000 });
    await using s = setup(await open(), { baseUrl: llm.url, model: "standin" });
    const id = await s.ask({ question: "Where does Redis keep data?" });
    await s.frames(id, (f) => f.event === "token");
    const cancelledAt = Date.now();
    const res = await s.json("POST", `/tasks/${id}/cancel`);
    assertEquals([res.status, await res.json()], [200, { cancelled_count: 1 }]);
    const request = await llm.disconnected();
    const after = Date.now() - cancelledAt;
    assert(after < 500, `the model's connection closed ${after} ms after the cancel (next delta 1 s away)`);
    assertEquals([request.disconnected, request.completed], [true, false]);
    const frames = await s.frames(id);
    assertEquals(frames.at(-1)?.event, "cancelled");
    assertEquals(tokens(frames), [" w0"]);
    assertEquals((await (await s.json("GET", `/tasks/${id}`)).json()).status, "cancelled");
  });
}

Deno.test("answer API: memory store", (t) => suite(t, () => Promise.resolve(createMemoryStore())));

Deno.test("answer API: Redis (real redis-server)", { ignore: missingTools("redis-server") }, async (t) => {
  await using redis = await startRedis();
  await suite(t, () => openStore({ url: redis.url, prefix: `answer-${crypto.randomUUID()}:` }));
});

Deno.test("taskDefinitions() lists every kind the service runs", () => {
  assertEquals(taskDefinitions({ store: createMemoryStore(), retriever: fixedRetriever() }).map((d) => d.kind), [
    "demo",
    "pipeline_run",
    "pipeline_document",
    "pipeline_prepare",
    "pipeline_ingest",
    "pipeline_full",
    "answer",
    "retrieve",
  ]);
});

Deno.test("answer over the service's own index: a question whose words no document has ends input_required, however many stop words it shares", async () => {
  await using served = testApp();
  const post = async (path: string, body: unknown) => {
    const res = await served.app.request(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    assert(res.ok, `${path}: ${res.status} ${await res.clone().text()}`);
    return await res.json();
  };
  const store = served.service.scope().store;
  const finished = async (id: string, until: RegExp) => {
    for await (const event of store.events.follow(`task:${id}`, 0, AbortSignal.timeout(10_000))) {
      if (until.test(event.kind)) return (await store.tasks.get(id))!;
    }
    throw new Error(`task ${id} never reached ${until}`);
  };
  for (
    const [title, content] of [["Harbours", "A harbour is a place of shelter for boats."], [
      "Tides",
      "The rise of the sea is a tide.",
    ]]
  ) {
    const added = await post("/pipelines/documents", { title, source: `${title.toLowerCase()}.md`, content });
    await finished(added.task_id, /^(done|failed)$/);
  }
  const unknown = await post("/tasks", { kind: "answer", input: { question: "What is the price of bananas?" } });
  const asked = await finished(unknown.task_id, /^(done|failed|input_required)$/);
  assertEquals(asked.status, "input_required", JSON.stringify(asked.result));
  const known = await post("/tasks", { kind: "answer", input: { question: "What is a harbour for?" } });
  const answered = await finished(known.task_id, /^(done|failed|input_required)$/);
  assertEquals([answered.status, (answered.result?.sources as { title: string }[])[0]?.title], ["done", "Harbours"]);
});
