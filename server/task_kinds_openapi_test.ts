import { assert, assertEquals } from "../testing/assert.ts";
import { createMemoryStore } from "../lib/store/mod.ts";
import { taskDefinitions } from "./mod.ts";
import { inputSchemas, validate } from "./console/schema.ts";
import { testApp } from "../testing/service.ts";

/** Every kind the service runs. */
const KINDS = taskDefinitions({ store: createMemoryStore(), retriever: { search: () => Promise.resolve([]) } })
  .map((d) => d.kind);

Deno.test("/openapi.json: POST /tasks takes one request per kind (oneOf, discriminator kind), each input a component", async () => {
  const app = testApp().app;
  const spec = await (await app.request("/openapi.json")).json();
  const body = spec.paths["/tasks"].post.requestBody.content["application/json"].schema;
  assertEquals(Object.keys(body.discriminator.mapping), KINDS);
  assertEquals(body.discriminator.propertyName, "kind");
  assertEquals(body.oneOf.map((s: { $ref: string }) => s.$ref), Object.values(body.discriminator.mapping));
  const demo = spec.components.schemas.DemoTaskRequest;
  assertEquals(demo.properties.kind, { type: "string", enum: ["demo"] });
  assertEquals(demo.properties.input, { $ref: "#/components/schemas/DemoTaskInput" });
  assertEquals(demo.required, ["kind"], "demo's input is all defaults");
  assertEquals(spec.components.schemas.AnswerTaskRequest.required, ["kind", "input"], "answer needs a question");
  assertEquals(Object.keys(demo.properties).sort(), ["input", "kind", "metadata", "session_id"]);
  const steps = spec.components.schemas.DemoTaskInput.properties.steps;
  assertEquals([steps.type, steps.minimum, steps.maximum, steps.default], ["integer", 0, 1000, 3]);
  assertEquals(spec.components.schemas.DemoTaskInput.additionalProperties, false);
  // What the console reads: each kind's input schema.
  assertEquals(Object.keys(inputSchemas(spec)), KINDS);
});

/** Inputs per kind: what the schema (and so the console) refuses must be what the service refuses. */
const CASES: [kind: string, input: unknown, fields: string[]][] = [
  ["demo", {}, []],
  ["demo", { steps: 2, tokens: ["a", "b"], ask: "why?" }, []],
  ["demo", { steps: "three" }, ["input.steps"]],
  ["demo", { steps: 1.5 }, ["input.steps"]],
  ["demo", { steps: 1001, children: -1 }, ["input.steps", "input.children"]],
  ["demo", { tokens: ["a", 2] }, ["input.tokens.1"]],
  ["demo", { ask: "" }, ["input.ask"]],
  ["demo", { colour: "teal" }, ["input"]],
  ["demo", [], ["input"]],
  ["answer", {}, ["input.question"]],
  ["answer", { question: "What is Redis?", k: 21 }, ["input.k"]],
  ["answer", { question: "x".repeat(2001) }, ["input.question"]],
  ["retrieve", { question: 7 }, ["input.question"]],
  ["pipeline_document", { title: "T", content: "C" }, ["input.source"]],
  ["pipeline_run", { documents: [] }, ["input.documents"]],
  ["pipeline_run", { documents: [{ title: "T", content: "C" }] }, ["input.documents.0.source"]],
  ["pipeline_prepare", { chunk_size: 50 }, ["input.chunk_size"]],
  ["pipeline_ingest", { path: "x" }, ["input"]],
];

Deno.test("the console's check of an input against the published schema names the fields the service's 422 names", async () => {
  const app = testApp().app;
  const schemas = inputSchemas(await (await app.request("/openapi.json")).json());
  for (const [kind, input, fields] of CASES) {
    const found = validate(schemas[kind], input).map((e) => e.field);
    assertEquals(found, fields, `${kind} ${JSON.stringify(input)} (schema)`);
    if (fields.length === 0) continue; // valid: submitting would start a task
    const res = await app.request("/tasks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ kind, input }),
    });
    const problem = await res.json();
    assertEquals(res.status, 422, `${kind} ${JSON.stringify(input)}`);
    const named = (problem.errors as { field: string }[]).map((e) => e.field);
    for (const field of fields) assert(named.includes(field), `${kind}: the service names ${named}, not ${field}`);
  }
});
