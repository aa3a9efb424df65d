import { assertEquals } from "../testing/assert.ts";
import { testApp } from "../testing/service.ts";
import { loneSurrogateField } from "./well_formed.ts";

function setup() {
  const lines: string[] = [];
  const { app } = testApp({ log: (line) => lines.push(line) });
  const post = async (path: string, text: string) => {
    const res = await app.request(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: text,
    });
    return { status: res.status, body: await res.json() };
  };
  const get = async (path: string) => {
    const res = await app.request(path);
    return { status: res.status, body: await res.json() };
  };
  return { app, lines, post, get };
}

Deno.test("loneSurrogateField() names the first string or key with a lone surrogate, and passes pairs", () => {
  assertEquals(loneSurrogateField({ a: "ok", b: ["x", "\ud83d\ude00"], c: { d: 1, e: null } }), undefined);
  assertEquals(loneSurrogateField({ session_id: "s\ud800" }), { field: "session_id", unit: "\\ud800" });
  assertEquals(loneSurrogateField({ input: { tokens: ["a", "\udc00b"] } }), {
    field: "input.tokens.1",
    unit: "\\udc00",
  });
  assertEquals(loneSurrogateField({ input: { ["k\ud800"]: 1 } }), { field: "input", key: true, unit: "\\ud800" });
  assertEquals(loneSurrogateField({ ["\udfff"]: 1 }), { field: "(body)", key: true, unit: "\\udfff" });
  assertEquals(loneSurrogateField("\ud800"), { field: "(body)", unit: "\\ud800" });
  assertEquals(
    loneSurrogateField("a\ude00\ud83d"),
    { field: "(body)", unit: "\\ude00" },
    "a low before a high pairs with nothing",
  );
});

Deno.test("a lone surrogate in a JSON string or key is a 422 naming the field, and nothing is stored", async () => {
  const { post, get, lines } = setup();
  const cases: [string, string, string][] = [
    ["/tasks", String.raw`{"kind":"demo","session_id":"s\ud800","input":{"steps":0}}`, "session_id"],
    ["/tasks", String.raw`{"kind":"demo","session_id":"s\uDC00x","input":{"steps":0}}`, "session_id"],
    ["/tasks", String.raw`{"kind":"demo","input":{"steps":0,"tokens":["a","\ud800"]}}`, "input.tokens.1"],
    ["/tasks", String.raw`{"kind":"demo","input":{"steps":0,"k\udbff":1}}`, "input"],
    ["/pipelines/documents", String.raw`{"title":"T","source":"a\ud800.md","content":"x"}`, "source"],
  ];
  for (const [path, text, field] of cases) {
    const { status, body } = await post(path, text);
    assertEquals([status, body.errors?.map((e: { field: string }) => e.field)], [422, [field]], text);
    assertEquals(body.errors[0].message.includes("lone UTF-16 surrogate"), true, body.errors[0].message);
  }
  assertEquals((await get("/tasks")).body.total, 0);
  // A pair written as escapes is one character, as is U+FFFD itself: both are fine.
  const pair = await post("/tasks", String.raw`{"kind":"demo","session_id":"s\ud83d\ude00","input":{"steps":0}}`);
  const replacement = await post("/tasks", String.raw`{"kind":"demo","session_id":"s\ufffd","input":{"steps":0}}`);
  assertEquals([pair.status, pair.body.session_id, replacement.status], [201, "s\u{1f600}", 201]);
  assertEquals((await get(`/tasks?session_id=${encodeURIComponent("s\ufffd")}`)).body.total, 1);
  assertEquals(lines, []);
});

Deno.test("a percent-encoded surrogate or other invalid UTF-8 in the path or query is a 422 naming the parameter", async () => {
  const { get, lines } = setup();
  const cases: [string, string][] = [
    ["/tasks/t%ED%A0%80", "task_id"],
    ["/tasks/t%ed%b0%80/children", "task_id"],
    ["/tasks/t%FF/tree", "task_id"],
    ["/sessions/s%ED%A0%80/stream", "session_id"],
    ["/tasks?session_id=s%ED%A0%80", "session_id"],
    ["/tasks?limit=5&session_id=%C3", "session_id"],
    ["/pipelines/search?q=%ED%BF%BF", "q"],
    ["/nowhere/%ED%A0%80", "(path)"],
  ];
  for (const [path, field] of cases) {
    const { status, body } = await get(path);
    assertEquals([status, body.errors?.map((e: { field: string }) => e.field)], [422, [field]], path);
  }
  // Valid UTF-8 and bare percent signs are left as they were.
  assertEquals((await get(`/tasks/${encodeURIComponent("t\u{1f600}é")}`)).status, 404);
  assertEquals((await get("/tasks/100%25")).status, 404);
  assertEquals((await get("/tasks?session_id=%E2%82%AC")).status, 200);
  assertEquals(lines, []);
});
