import { assert, assertEquals, assertRejects } from "../../testing/assert.ts";
import { startLlmStandIn } from "../../testing/llm_standin.ts";
import { answerPrompt, LlmError, shownUrl, streamChat } from "./llm.ts";

const collect = async (gen: AsyncGenerator<string>) => {
  const out: string[] = [];
  for await (const text of gen) out.push(text);
  return out;
};
const messages = [{ role: "user" as const, content: "Hi" }];

Deno.test("streamChat() posts a streaming request with the key and yields each delta until [DONE]", async () => {
  await using llm = await startLlmStandIn({ deltas: ["Hel", "lo", " [1]"], apiKey: "sk-secret-key" });
  const config = { baseUrl: `${llm.url}/`, model: "standin-1", apiKey: "sk-secret-key" };
  assertEquals(await collect(streamChat(config, messages, { fetch })), ["Hel", "lo", " [1]"]);
  assertEquals(llm.requests.length, 1);
  const [request] = llm.requests;
  assertEquals([request.path, request.authorization], ["/v1/chat/completions", "Bearer sk-secret-key"]);
  assertEquals(request.body, { model: "standin-1", messages, stream: true });
  assertEquals([request.completed, request.disconnected], [true, false]);
});

Deno.test("streamChat() errors name the URL and the fix, never the key", async () => {
  await using llm = await startLlmStandIn({ apiKey: "sk-right-key" });
  const url = `${llm.url}/chat/completions`;
  const run = (apiKey?: string) => collect(streamChat({ baseUrl: llm.url, model: "m", apiKey }, messages, { fetch }));

  let error = await assertRejects(() => run("sk-wrong-key"), /HTTP 401/);
  assert(error instanceof LlmError);
  assertEquals(error.status, 401);
  assert(error.message.startsWith(`The model at ${url} answered HTTP 401`), error.message);
  assert(error.message.endsWith("; check LLM_API_KEY"), error.message);
  assert(!error.message.includes("sk-wrong-key"));

  llm.configure({ apiKey: undefined, failStatus: 503 });
  error = await assertRejects(() => run("sk-right-key"), /answered HTTP 503: .*the model server failed; try again$/);
  assert(!error.message.includes("sk-right-key"));

  llm.configure({ failStatus: undefined, rawLines: ["data: {not json"] });
  await assertRejects(
    () => run(),
    new RegExp(`^The model at ${url} sent a stream event that is not JSON: \\{not json$`),
  );

  llm.configure({ rawLines: [`data: ${JSON.stringify({ choices: [{ delta: { content: "cut" } }] })}`] });
  await assertRejects(() => run(), /ended its stream before data: \[DONE\]; the answer may be cut$/);

  llm.configure({ rawLines: [`data: ${JSON.stringify({ error: { message: "model overloaded" } })}`] });
  await assertRejects(() => run(), /reported an error in its stream: model overloaded$/);

  llm.configure({ rawLines: ["data: [DONE]"] });
  await assertRejects(() => run(), /sent an empty answer; check LLM_MODEL$/);

  // A finish_reason without [DONE] is a complete answer.
  llm.configure({
    rawLines: [`data: ${JSON.stringify({ choices: [{ delta: { content: "ok" }, finish_reason: "stop" }] })}`],
  });
  assertEquals(await run(), ["ok"]);

  // Comments, event names, ids, CRLF line ends and an event of several data lines are read as SSE has them.
  llm.configure({
    rawLines: [
      ": keep-alive",
      'event: message\r\nid: 1\r\ndata: {"choices":[{"delta":\r\ndata: {"content":"multi"}}]}',
      `data:${JSON.stringify({ choices: [{ delta: { content: " line" }, finish_reason: "stop" }] })}`,
      "data: [DONE]",
    ],
  });
  assertEquals(await run(), ["multi", " line"]);

  await using closed = await startLlmStandIn();
  const gone = closed.url.replace("/v1", "/nowhere");
  await closed[Symbol.asyncDispose]();
  error = await assertRejects(() =>
    collect(streamChat({ baseUrl: gone, model: "m", apiKey: "sk-hidden" }, messages, { fetch }))
  );
  assert(error.message.startsWith(`The model at ${gone}/chat/completions cannot be reached: `), error.message);
  assert(error.message.endsWith("; check LLM_BASE_URL"), error.message);
});

Deno.test("streamChat() refuses an answer that is not an event stream", async () => {
  const fake: typeof fetch = () => Promise.resolve(Response.json({ choices: [{ message: { content: "hi" } }] }));
  await assertRejects(
    () => collect(streamChat({ baseUrl: "http://model.test/v1", model: "m" }, messages, { fetch: fake })),
    /^The model at http:\/\/model.test\/v1\/chat\/completions answered with content-type 'application\/json', not a text\/event-stream/,
  );
});

Deno.test("streamChat() aborted by its signal closes the connection at once", async () => {
  await using llm = await startLlmStandIn({ deltas: Array.from({ length: 100 }, (_, i) => `t${i} `), delayMs: 50 });
  const controller = new AbortController();
  const got: string[] = [];
  const error = await assertRejects(async () => {
    for await (
      const text of streamChat({ baseUrl: llm.url, model: "m" }, messages, { fetch, signal: controller.signal })
    ) {
      got.push(text);
      if (got.length === 2) controller.abort();
    }
  });
  assertEquals(error.name, "AbortError");
  const request = await llm.disconnected();
  assertEquals([request.disconnected, request.completed], [true, false]);
  assertEquals(got, ["t0 ", "t1 "]);
});

Deno.test("streamChat() fails a model silent for idleTimeoutMs, and hangs up on it", async () => {
  await using llm = await startLlmStandIn({ deltas: ["first", " late"], delayMs: 5_000 });
  const got: string[] = [];
  const started = Date.now();
  await assertRejects(
    async () => {
      for await (const text of streamChat({ baseUrl: llm.url, model: "m", idleTimeoutMs: 200 }, messages, { fetch })) {
        got.push(text);
      }
    },
    new RegExp(
      `^The model at ${llm.url}/chat/completions sent nothing for 0.2 s; try again later, or another LLM_MODEL$`,
    ),
  );
  const elapsed = Date.now() - started;
  assert(elapsed < 2_000, `failed after ${elapsed} ms`);
  assertEquals(got, ["first"]);
  assertEquals((await llm.disconnected()).completed, false);
});

Deno.test("answerPrompt() numbers the chunks with title and source, then asks the question", () => {
  const hits = [
    { chunk_id: "a", document_id: "d", title: "Redis", source: "redis.md", text: " Redis is fast. ", score: 2 },
    { chunk_id: "b", document_id: "d", title: "Lua", source: "lua.md", text: "Scripts are atomic.", score: 1 },
  ];
  const [system, user] = answerPrompt("Why?", hits);
  assertEquals(system.role, "system");
  assert(system.content.includes("[1]"));
  assertEquals(user, {
    role: "user",
    content:
      "Sources:\n\n[1] Redis (redis.md)\nRedis is fast.\n\n[2] Lua (lua.md)\nScripts are atomic.\n\nQuestion: Why?",
  });
});

Deno.test("shownUrl() hides a user name and password", () => {
  assertEquals(shownUrl("https://user:pw@llm.example/v1"), "https://***@llm.example/v1");
  assertEquals(shownUrl("http://127.0.0.1:8000/v1"), "http://127.0.0.1:8000/v1");
});
