import { assertEquals } from "../../testing/assert.ts";
import { type Shape, shapeProblems } from "./shape.ts";

const TASK: Shape = {
  type: "object",
  properties: {
    taskId: { type: "string" },
    status: { type: "string", enum: ["received", "processing-completed"] },
    response: { type: "object", properties: { error: { type: "string", enum: "errors" } }, required: [] },
    resource: { type: "object", properties: {}, required: [], open: true },
    count: { type: "integer" },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["taskId", "status"],
};

Deno.test("shapeProblems() finds missing and unknown fields, wrong types and values not documented", () => {
  assertEquals(shapeProblems({ taskId: "t", status: "received", resource: { anything: 1 } }, TASK), []);
  assertEquals(
    shapeProblems(
      { status: "done", extra: 1, count: 1.5, tags: ["a", 2], response: { error: "NOPE" } },
      TASK,
      { errors: ["BAD"] },
    ),
    [
      "taskId: missing",
      'status: "done" is not one of the documented values',
      "extra: not a field of the real object",
      "count: expected integer, got 1.5",
      "tags[1]: expected string, got number",
      'response.error: "NOPE" is not one of the documented values',
    ],
  );
  assertEquals(shapeProblems([1], TASK), ["(body): expected object, got array"]);
});
