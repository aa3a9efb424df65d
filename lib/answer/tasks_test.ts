import { assert, assertEquals, assertMatch, assertRejects } from "../../testing/assert.ts";
import { fixedRetriever } from "../../testing/answer_fixtures.ts";
import { startLlmStandIn } from "../../testing/llm_standin.ts";
import { createMemoryStore, type Store, type StoredEvent } from "../store/mod.ts";
import { createTaskRunner, TaskInputError, type TaskRunner } from "../tasks/mod.ts";
import { type AnswerTaskOptions, answerTasks, MAX_QUESTIONS } from "./mod.ts";

const FINAL = new Set(["done", "failed", "cancelled"]);

/** The task's events until its final one (or until `until` says stop). */
async function eventsOf(store: Store, taskId: string, until?: (e: StoredEvent) => boolean): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  const signal = AbortSignal.timeout(10_000);
  for await (const event of store.events.follow(`task:${taskId}`, 0, signal)) {
    out.push(event);
    if (until ? until(event) : FINAL.has(event.kind)) break;
  }
  return out;
}

async function withRuntime(options: AnswerTaskOptions, fn: (runtime: TaskRunner, store: Store) => Promise<void>) {
  const store = createMemoryStore();
  const runtime = createTaskRunner({ store, definitions: answerTasks(options), log: () => {} });
  try {
    await fn(runtime, store);
  } finally {
    await runtime.close();
    await store.close();
  }
}

const tokensOf = (events: StoredEvent[]) => events.filter((e) => e.kind === "token").map((e) => e.data.message);

Deno.test("answer task: retrieves through a `retrieve` child, streams word tokens, ends with answer and sources", async () => {
  const retriever = fixedRetriever();
  await withRuntime({ retriever }, async (runtime, store) => {
    const task = await runtime.submit({ kind: "answer", input: { question: "How does Redis write snapshots?" } });
    const events = await eventsOf(store, task.task_id);
    const answer = "Redis keeps its data in memory. It writes snapshots to disk for persistence. [1]";
    const sources = [{ title: "Redis basics", source: "docs/redis.md", chunk_id: "redis-1", score: 3 }];
    assertEquals(events.at(-1)?.kind, "done");
    assertEquals(events.at(-1)?.data.result, { answer, sources });
    assertEquals(tokensOf(events), answer.match(/\s*\S+/g));
    assertEquals(tokensOf(events).join(""), answer);
    // the retrieve child comes first, then every token, then done
    const kinds = events.map((e) => e.kind);
    assert(kinds.indexOf("subtask_done") < kinds.indexOf("token"), kinds.join(","));
    const [child] = await store.tasks.children(task.task_id);
    assertEquals([child.kind, child.spawn_key, child.status, child.input], [
      "retrieve",
      "retrieve",
      "done",
      { question: "How does Redis write snapshots?", k: 5 },
    ]);
    assertEquals((child.result?.hits as { chunk_id: string }[]).map((h) => h.chunk_id), ["redis-1"]);
    assertEquals(retriever.searches, ["How does Redis write snapshots?"]);
  });
});

Deno.test("answer task: k bounds the chunks; sources are numbered in the order they are cited", async () => {
  await withRuntime({ retriever: fixedRetriever() }, async (runtime, store) => {
    const question = "Does cancelling a task stop the Lua script in memory?";
    const task = await runtime.submit({ kind: "answer", input: { question, k: 2 } });
    const result = (await eventsOf(store, task.task_id)).at(-1)?.data.result;
    const [child] = await store.tasks.children(task.task_id);
    assertEquals((child.result?.hits as { chunk_id: string }[]).map((h) => h.chunk_id), ["limits-1", "tasks-1"]);
    assertEquals(result, {
      answer: "A Lua script trims and counts in one step. [1] " +
        "A task can spawn sub-tasks. Cancelling a task cancels its sub-tasks too. [2]",
      sources: [
        { title: "Rate limiting", source: "docs/limits.md", chunk_id: "limits-1", score: 2 },
        { title: "Tasks", source: "docs/tasks.md", chunk_id: "tasks-1", score: 2 },
      ],
    });
  });
});

Deno.test("answer task: nothing matches → input_required; the new question retrieves again as retrieve-2", async () => {
  const retriever = fixedRetriever();
  await withRuntime({ retriever }, async (runtime, store) => {
    const task = await runtime.submit({ kind: "answer", input: { question: "Who won the football match?" } });
    let events = await eventsOf(store, task.task_id, (e) => e.kind === "input_required");
    const prompt = String(events.at(-1)?.data.prompt);
    assertMatch(prompt, /^No document matches "Who won the football match\?"\. Rephrase the question/);
    assertEquals((await store.tasks.get(task.task_id))?.status, "input_required");

    // an input that is no question asks again, saying what it takes
    assertEquals(await runtime.input(task.task_id, 42), { ok: true });
    events = await eventsOf(store, task.task_id, (e) => e.kind === "input_required" && e.id > events.at(-1)!.id);
    assertMatch(String(events.at(-1)?.data.prompt), /the input must be the new question as a string .*; got 42\.$/);

    assertEquals(await runtime.input(task.task_id, { question: "What does the sliding window count?" }), { ok: true });
    events = await eventsOf(store, task.task_id);
    const result = events.at(-1)?.data.result as { answer: string; sources: { chunk_id: string }[] };
    assertEquals(result.sources.map((s) => s.chunk_id), ["limits-1"]);
    assertEquals(
      result.answer,
      "The sliding window log counts requests of the last 30 seconds. A Lua script trims and counts in one step. [1]",
    );
    const children = await store.tasks.children(task.task_id);
    assertEquals(children.map((c) => [c.spawn_key, c.status]), [["retrieve", "done"], ["retrieve-2", "done"]]);
    assertEquals(retriever.searches, ["Who won the football match?", "What does the sliding window count?"]);
  });
});

Deno.test(`answer task: fails after ${MAX_QUESTIONS} questions without a match`, async () => {
  await withRuntime({ retriever: fixedRetriever([]) }, async (runtime, store) => {
    const task = await runtime.submit({ kind: "answer", input: { question: "anything?" } });
    for (let n = 1; n < MAX_QUESTIONS; n++) {
      for (;;) {
        const outcome = await runtime.input(task.task_id, `question ${n + 1}`);
        if (outcome.ok) break;
        await new Promise((r) => setTimeout(r, 5)); // not asking yet
      }
    }
    const last = (await eventsOf(store, task.task_id)).at(-1);
    assertEquals(last?.kind, "failed");
    assertMatch(String(last?.data.error), /^No document matched any of the 10 questions asked; ingest documents/);
    assertEquals((await store.tasks.children(task.task_id)).length, MAX_QUESTIONS);
  });
});

Deno.test("answer task: refuses a blank, overlong or unknown input, and k outside 1..20", async () => {
  await withRuntime({ retriever: fixedRetriever() }, async (runtime) => {
    for (
      const [input, field] of [
        [{ question: "" }, "input.question"],
        [{ question: "   " }, "input.question"],
        [{ question: "x".repeat(2_001) }, "input.question"],
        [{}, "input.question"],
        [{ question: "ok", k: 0 }, "input.k"],
        [{ question: "ok", k: 21 }, "input.k"],
        [{ question: "ok", k: 1.5 }, "input.k"],
        [{ question: "ok", extra: 1 }, "input"],
      ] as const
    ) {
      const error = await assertRejects(() => runtime.submit({ kind: "answer", input }));
      assert(error instanceof TaskInputError);
      assertEquals(error.errors[0].field, field, JSON.stringify(input));
    }
    const ok = await runtime.submit({ kind: "answer", input: { question: "x".repeat(2_000), k: 20 } });
    assertEquals(ok.status, "in_progress");
  });
});

Deno.test("answer task: a retriever that fails fails the retrieve child and the answer, naming it", async () => {
  const retriever = { search: () => Promise.reject(new Error("index not ready")) };
  await withRuntime({ retriever }, async (runtime, store) => {
    const task = await runtime.submit({ kind: "answer", input: { question: "Redis?" } });
    const last = (await eventsOf(store, task.task_id)).at(-1);
    assertEquals(last?.kind, "failed");
    assertMatch(String(last?.data.error), /^Sub-task retrieve \(.+\) failed: index not ready$/);
  });
});

Deno.test("answer task with a model: streams its deltas as tokens from a prompt of the numbered chunks", async () => {
  await using llm = await startLlmStandIn({
    deltas: ["Redis", " writes", " snapshots", " [1]."],
    apiKey: "sk-test-1234",
  });
  const config = { baseUrl: llm.url, model: "standin", apiKey: "sk-test-1234" };
  await withRuntime({ retriever: fixedRetriever(), llm: config, fetch }, async (runtime, store) => {
    const task = await runtime.submit({ kind: "answer", input: { question: "Does Redis keep data in memory?" } });
    const events = await eventsOf(store, task.task_id);
    assertEquals(tokensOf(events), ["Redis", " writes", " snapshots", " [1]."]);
    const result = events.at(-1)?.data.result as { answer: string; sources: { chunk_id: string; score: number }[] };
    assertEquals(result.answer, "Redis writes snapshots [1].");
    assertEquals(result.sources.map((s) => [s.chunk_id, s.score]), [["redis-1", 4]]);
    const [request] = llm.requests;
    assertEquals([request.authorization, request.body.model, request.body.stream], [
      "Bearer sk-test-1234",
      "standin",
      true,
    ]);
    const user = request.body.messages?.at(-1)?.content ?? "";
    assert(user.includes("[1] Redis basics (docs/redis.md)\nRedis keeps its data in memory."), user);
    assert(user.endsWith("Question: Does Redis keep data in memory?"), user);
  });
});

Deno.test("answer task with a model: an HTTP error fails the task naming the URL, not the key", async () => {
  await using llm = await startLlmStandIn({ apiKey: "sk-real-key" });
  const config = { baseUrl: llm.url, model: "standin", apiKey: "sk-wrong-key" };
  await withRuntime({ retriever: fixedRetriever(), llm: config, fetch }, async (runtime, store) => {
    const task = await runtime.submit({ kind: "answer", input: { question: "Redis memory?" } });
    const last = (await eventsOf(store, task.task_id)).at(-1);
    assertEquals(last?.kind, "failed");
    const error = String(last?.data.error);
    assert(error.startsWith(`The model at ${llm.url}/chat/completions answered HTTP 401`), error);
    assert(!error.includes("sk-wrong-key") && !error.includes("sk-real-key"), error);
  });
});

Deno.test("answer task with a model: cancel closes the model's connection at once and emits no more tokens", async () => {
  const deltas = Array.from({ length: 50 }, (_, i) => ` word${i}`);
  await using llm = await startLlmStandIn({ deltas, delayMs: 1_000 });
  await withRuntime(
    { retriever: fixedRetriever(), llm: { baseUrl: llm.url, model: "m" }, fetch },
    async (runtime, store) => {
      const task = await runtime.submit({ kind: "answer", input: { question: "Redis memory?" } });
      await eventsOf(store, task.task_id, (e) => e.kind === "token");
      const cancelled = Date.now();
      assertEquals((await runtime.cancel(task.task_id, true)).cancelled_count, 1);
      const request = await llm.disconnected();
      const after = Date.now() - cancelled;
      assert(after < 500, `the connection closed ${after} ms after the cancel (the next delta was 1 s away)`);
      assertEquals([request.disconnected, request.completed], [true, false]);
      await new Promise((r) => setTimeout(r, 100));
      const events = await eventsOf(store, task.task_id);
      assertEquals(events.at(-1)?.kind, "cancelled");
      assertEquals(tokensOf(events), [" word0"]);
      assertEquals((await store.tasks.get(task.task_id))?.status, "cancelled");
    },
  );
});
