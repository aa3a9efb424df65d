import { assert, assertEquals, assertMatch } from "../../testing/assert.ts";
import { applyQuery } from "./query.ts";
import { render } from "./format.ts";
import { colorJson } from "./json_color.ts";
import { createLogger } from "./log.ts";
import { StoreCtlError } from "../errors/mod.ts";

const BDBS = [{ uid: 1, name: "a", memory_size: 1024, endpoints: [{ port: 12001 }] }, {
  uid: 2,
  name: "b",
  memory_size: 2048,
}];

Deno.test("render() writes json, yaml and raw values", async () => {
  assertEquals(await render({ a: 1 }, { format: "json" }), '{\n  "a": 1\n}\n');
  assertEquals(await render({ a: [1] }, { format: "yaml" }), "a:\n  - 1\n");
  assertEquals(await render(["a", "b"], { format: "raw" }), "a\nb\n");
  assertEquals(await render("x", { format: "raw" }), "x\n");
  assertEquals(await render({ a: 1 }, { format: "raw" }), '{"a":1}\n');
});

Deno.test("colorJson() is JSON.stringify(…, null, 2) with colours", () => {
  const data = { name: "a", size: 1, ok: true, none: null, list: [1, "x"], empty: {}, nested: { k: [] } };
  const colored = colorJson(data);
  const ESC = "\x1b";
  assertEquals(colored.replaceAll(new RegExp(`${ESC}\\[[0-9;]*m`, "g"), ""), JSON.stringify(data, null, 2));
  assert(colored.includes(`${ESC}[34;1m"name"${ESC}[0m: ${ESC}[32m"a"${ESC}[0m`));
});

Deno.test("render() tables fit the width by cutting free text with …, never a name", async () => {
  const rows = [{ uid: 1, name: "a-long-database-name", status: "active", note: "kept for the nightly reports" }];
  const text = await render(rows, {
    format: "table",
    columns: [
      { header: "UID", value: "uid" },
      { header: "NAME", value: "name" },
      { header: "STATUS", value: "status" },
      { header: "NOTE", value: "note", role: "text" },
    ],
    width: 50,
  });
  for (const line of text.trimEnd().split("\n")) assertEquals([...line].length <= 50, true, line);
  assertMatch(text, /│ a-long-database-name │ active │ kept fo… │/);
  const nested = await render([{ a: { b: 2 } }], { format: "table", columns: [{ header: "B", value: "a.b" }] });
  assertMatch(nested, /│ 2 │/);
});

Deno.test("render() tables arrays of objects, single objects and scalar lists", async () => {
  const rows = await render(BDBS, { format: "table" });
  assertMatch(rows, /│ 1 +│ a +│ 1024 +│ \[\{"port":12001\}\] +│/);
  assertMatch(rows, /│ 2 +│ b +│ 2048 +│ +│/);
  assertMatch(await render({ name: "c", state: "active" }, { format: "table" }), /│ state │ active │/);
  assertMatch(await render(["x", "y"], { format: "table" }), /VALUE[\s\S]*│ y +│/);
  assertEquals(await render([], { format: "table" }), "");
});

Deno.test("applyQuery() filters with JMESPath", async () => {
  assertEquals(await applyQuery(BDBS, "[].name"), ["a", "b"]);
  assertEquals(await applyQuery(BDBS, "[?memory_size > `1024`].uid | [0]"), 2);
});

Deno.test("applyQuery() reports an invalid expression as a usage error with its position", async () => {
  for (const [expression, position] of [["[].name[", 8], ["a[?b ==", 7], ["a.#", 2], ["[].name]", 7]] as const) {
    try {
      await applyQuery(BDBS, expression);

      throw new Error("expected a failure");
    } catch (error) {
      assertEquals((error as StoreCtlError).code, "usage");
      assertMatch((error as Error).message, new RegExp(`position ${position}$`));
    }
  }
});

Deno.test("createLogger() combines -v counts with STORE_LOG filters", () => {
  const lines: string[] = [];
  const quiet = createLogger({ verbosity: 0, write: (l) => lines.push(l) });
  assertEquals([quiet.enabled("warn"), quiet.enabled("info")], [true, false]);
  const vv = createLogger({ verbosity: 2, write: (l) => lines.push(l) });
  assertEquals([vv.enabled("debug"), vv.enabled("trace")], [true, false]);
  const filtered = createLogger({ verbosity: 0, filter: "info,storectl::http=trace", write: (l) => lines.push(l) });
  assertEquals([
    filtered.enabled("info", "config"),
    filtered.enabled("debug", "config"),
    filtered.enabled("trace", "http"),
  ], [
    true,
    false,
    true,
  ]);
  filtered.log("trace", "http", "GET /v1/bdbs");
  assertEquals(lines, ["TRACE http: GET /v1/bdbs"]);
});
