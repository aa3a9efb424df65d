import { assert, assertEquals } from "../testing/assert.ts";
import { testTokens } from "../testing/auth_tokens.ts";
import { testApp } from "../testing/service.ts";
import { createTokenSet, parseTokens } from "./auth/tokens.ts";
import { formatLog } from "./log.ts";

Deno.test("formatLog: text after a prefix as before; JSON with time, level (from the words when not given) and fields", () => {
  const lines: string[] = [];
  formatLog("text", (line) => lines.push(line), "storectl server: ")("listening", { level: "info", x: 1 });
  const json = formatLog("json", (line) => lines.push(line), "ignored: ", () => Date.parse("2026-11-29T00:00:00Z"));
  json("store unreachable task queue: Redis at 127.0.0.1:6379 did not answer");
  json("error traceId=abc GET /x: boom");
  json("request", { method: "GET", status: 200 });
  assertEquals(lines[0], "storectl server: listening");
  assertEquals(lines.slice(1).map((l) => JSON.parse(l)), [
    {
      time: "2026-11-29T00:00:00.000Z",
      level: "warn",
      message: "store unreachable task queue: Redis at 127.0.0.1:6379 did not answer",
    },
    { time: "2026-11-29T00:00:00.000Z", level: "error", message: "error traceId=abc GET /x: boom" },
    { time: "2026-11-29T00:00:00.000Z", level: "info", message: "request", method: "GET", status: 200 },
  ]);
});

Deno.test("LOG_FORMAT=json: an access line per request, JSON only, and no token, ticket or password in any line", async () => {
  const tokens = testTokens();
  const lines: string[] = [];
  await using served = testApp({
    env: { LOG_FORMAT: "json" },
    tokens: createTokenSet(parseTokens(tokens.file, "test")),
    log: formatLog("json", (line) => lines.push(line)),
  });
  const { app } = served;
  const auth = { authorization: `Bearer ${tokens.admin}` };
  const made = await app.request("/tasks", {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ kind: "demo", input: { steps: 0 }, metadata: { password: "hunter2-in-a-body" } }),
  });
  const id = (await made.json()).task_id;
  const ticket = await (await app.request("/stream-tickets", {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ url: `/tasks/${id}/stream?replay=true` }),
  })).json();
  await (await app.request(ticket.url)).text(); // a finished task's stream: replayed, then it ends
  await (await app.request("/tasks/t-none", { headers: { authorization: "Bearer not-a-token-secret" } })).body
    ?.cancel();
  const entries = lines.map((line) => JSON.parse(line));
  const access = entries.filter((e) => e.message === "request");
  assertEquals(access.map((e) => [e.method, e.route, e.status]), [
    ["POST", "/tasks", 201],
    ["POST", "/stream-tickets", 201],
    ["GET", "/tasks/:task_id/stream", 200],
    ["GET", "/tasks/:task_id", 401],
  ]);
  for (const entry of access) {
    assert(
      typeof entry.time === "string" && typeof entry.duration_ms === "number" && /^[0-9a-f]{32}$/.test(entry.trace_id),
    );
  }
  assertEquals(access[0].tenant, "acme");
  const all = lines.join("\n");
  for (const secret of [tokens.admin, ticket.ticket, "hunter2-in-a-body", "not-a-token-secret"]) {
    assert(!all.includes(secret), `a secret in the log: ${secret}`);
  }
});

Deno.test("LOG_FORMAT=json: the access line's request_id is the caller's X-Request-Id when it is a plain one, else the trace id", async () => {
  const lines: string[] = [];
  await using served = testApp({ env: { LOG_FORMAT: "json" }, log: formatLog("json", (line) => lines.push(line)) });
  for (const id of ["req-42.a_B", "has spaces; and {braces}", "x".repeat(200)]) {
    await (await served.app.request("/tasks/t-none", { headers: { "x-request-id": id } })).body?.cancel();
  }
  await (await served.app.request("/tasks/t-none")).body?.cancel();
  const access = lines.map((line) => JSON.parse(line)).filter((e) => e.message === "request");
  assertEquals(access[0].request_id, "req-42.a_B");
  for (const entry of access.slice(1)) assertEquals(entry.request_id, entry.trace_id, "not a plain id: the trace id");
});
