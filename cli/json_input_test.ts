import { assertEquals, assertMatch } from "../tests/assert.ts";
import { firstErrorIndex, requireJson } from "./json_input.ts";

Deno.test("firstErrorIndex() points at the first invalid character", () => {
  assertEquals(firstErrorIndex('{"name": }'), 9);
  assertEquals(firstErrorIndex('{"a": 1,}'), 8);
  assertEquals(firstErrorIndex("[1, 2"), 5);
  assertEquals(firstErrorIndex('{"a": tru}'), 9);
  assertEquals(firstErrorIndex('{"a": "x\\q"}'), 9);
  assertEquals(firstErrorIndex("[1] x"), 4);
  assertEquals(firstErrorIndex('{"a": [1, {"b": null}], "c": -1.5e3}'), 36);
});

Deno.test("requireJson() names the source, line and column", () => {
  try {
    requireJson('{\n  "name": "x",\n  "memory": \n}', "body.json");
    throw new Error("expected a failure");
  } catch (error) {
    assertMatch((error as Error).message, /^Invalid JSON in body\.json at line 4, column 1 near '}'/);
  }
});
