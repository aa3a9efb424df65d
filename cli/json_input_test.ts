import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import type { StoreCtlError } from "../lib/errors/mod.ts";
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

/** The error `requireJson` throws for `text`. */
function jsonError(text: string, from = "--data"): StoreCtlError {
  try {
    requireJson(text, from);
  } catch (error) {
    return error as StoreCtlError;
  }
  throw new Error(`${text} was accepted`);
}

Deno.test("requireJson() gives the position once, in words of its own, and a tip that fits the mistake", () => {
  const comma = jsonError('{"a": 1,}');
  assertEquals(
    comma.message,
    "Invalid JSON in --data at line 1, column 9 near '}': expected a property name in double quotes; nothing was sent",
  );
  assertEquals(comma.tips, ["JSON has no comma before a closing } or ]"]);
  // The shell took the double quotes of unquoted inline JSON.
  const unquoted = jsonError("{name:cache}");
  assertEquals(unquoted.tips, [
    `Quote inline JSON in single quotes, so the shell keeps its double quotes: -d '{"name":"x"}'`,
  ]);
  const short = jsonError("[1, 2", "standard input");
  assertEquals(
    short.message,
    "Invalid JSON in standard input at line 1, column 6 (the input ends too early): expected ',' or ']'; nothing was sent",
  );
  assertEquals(short.tips, ['Something is missing at the end: a closing }, ] or "']);
  const file = jsonError('{\n  "name": "x",\n  "memory": \n}', "body.json");
  assertEquals(
    file.message,
    "Invalid JSON in body.json at line 4, column 1 near '}': expected a value; nothing was sent",
  );
  assertEquals(file.tips, ["Fix body.json at line 4, column 1"]);
  for (const text of ['{"a": 1,}', "[1, 2", '{"a": tru}', '{"a": "x\\q"}', "[1] x", '{"a" 1}']) {
    assert(!/position|JSON at/.test(jsonError(text).message), jsonError(text).message);
  }
});
