import { assertEquals } from "../testing/assert.ts";

import { testApp } from "../testing/service.ts";

const TAGS = ["tasks", "streams", "pipelines", "rate limit", "service"];

Deno.test("GET /openapi.json lists every route, the rate-limited one too, each under one of five tags", async () => {
  const app = testApp().app;
  const spec = await (await app.request("/openapi.json")).json();
  assertEquals(spec.tags.map((t: { name: string }) => t.name), TAGS);
  for (const tag of spec.tags) assertEquals(typeof tag.description, "string", tag.name);
  const documented = new Set<string>();
  for (const [path, operations] of Object.entries(spec.paths as Record<string, Record<string, { tags?: string[] }>>)) {
    for (const [method, operation] of Object.entries(operations)) {
      assertEquals(operation.tags?.length, 1, `${method} ${path}`);
      assertEquals(TAGS.includes(operation.tags![0]), true, `${method} ${path}: ${operation.tags}`);
      documented.add(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`);
    }
  }
  // Every route the app serves, but the documents about itself and the console (pages, not API).
  const served = app.routes
    .filter((r) => r.method !== "ALL" && !/^\/(openapi\.json|docs|console)/.test(r.path))
    .map((r) => `${r.method} ${r.path}`);
  for (const route of served) assertEquals(documented.has(route), true, `${route} is not in /openapi.json`);
  const limited = spec.paths["/api/RateLimited/sliding"];
  assertEquals(Object.keys(limited).sort(), ["get", "post"]);
  assertEquals(Object.keys(limited.get.responses).sort(), ["200", "401", "429"]);
  assertEquals(limited.get.tags, ["rate limit"]);
});
