// Beside the browser code it serves: plain TypeScript, no DOM, so server tests import it too.
import { assertEquals } from "../../testing/assert.ts";
import { validate } from "./schema.ts";

Deno.test("validate: the JSON Schema subset of the task kinds, each problem naming its field and what is expected", () => {
  const schema = {
    type: "object",
    properties: {
      steps: { type: "integer", minimum: 0, maximum: 10 },
      ratio: { type: "number", exclusiveMinimum: 0 },
      name: { type: "string", minLength: 1, maxLength: 3 },
      mode: { enum: ["a", "b"] },
      tags: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 2 },
      nested: { $ref: "#/components/schemas/Nested" },
      any: {},
    },
    required: ["name"],
    additionalProperties: false,
  };
  const root = { components: { schemas: { Nested: { type: "object", properties: { on: { type: "boolean" } } } } } };
  const check = (value: unknown) => validate(schema, value, "input", root).map((e) => `${e.field}: ${e.message}`);
  assertEquals(check({ name: "ab", steps: 3, ratio: 0.5, mode: "a", tags: ["x"], nested: { on: true }, any: [1] }), []);
  assertEquals(check("text"), ["input: expected an object, got a string"]);
  assertEquals(check(null), ["input: expected an object, got null"]);
  assertEquals(check({}), ["input.name: required"]);
  assertEquals(check({ name: "", steps: "3" }), [
    "input.steps: expected an integer, got a string",
    "input.name: expected at least 1 character",
  ]);
  assertEquals(check({ name: "abcd", steps: 1.5, ratio: 0 }), [
    "input.steps: expected an integer, got 1.5",
    "input.ratio: expected more than 0, got 0",
    "input.name: expected at most 3 characters",
  ]);
  assertEquals(check({ name: "a", steps: 11, mode: "c" }), [
    "input.steps: expected at most 10, got 11",
    'input.mode: expected one of "a", "b"',
  ]);
  assertEquals(check({ name: "a", tags: [] }), ["input.tags: expected at least 1 item"]);
  assertEquals(check({ name: "a", tags: ["x", 2, "z"] }), [
    "input.tags: expected at most 2 items",
    "input.tags.1: expected a string, got a number",
  ]);
  assertEquals(check({ name: "a", nested: { on: "yes" } }), ["input.nested.on: expected a boolean, got a string"]);
  assertEquals(check({ name: "a", colour: "teal" }), ['input: unknown field "colour"']);
});
