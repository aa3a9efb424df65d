import { createRoute, z } from "@hono/zod-openapi";
import { assert, assertEquals, assertMatch } from "../tests/assert.ts";
import { createMemoryStore, type Store } from "../lib/store/mod.ts";
import { ClientDisconnected, RequestBodyTimeout } from "../lib/runtime/mod.ts";
import { createApp } from "./mod.ts";
import { assertDocsOffline } from "../tests/docs_page.ts";

const down: Store = {
  ...createMemoryStore(),
  kind: "redis",
  ping: () => Promise.reject(new Error("connect ECONNREFUSED")),
  hitSlidingWindow: () => Promise.reject(new Error("connect ECONNREFUSED")),
  close: () => Promise.resolve(),
};

function setup() {
  const lines: string[] = [];
  const app = createApp({ store: createMemoryStore(), bodyLimitBytes: 100, log: (line) => lines.push(line) });
  return { app, lines };
}

Deno.test("GET / names the service, its version and docs", async () => {
  const res = await setup().app.request("/");
  const { version } = JSON.parse(await Deno.readTextFile(new URL("../package.json", import.meta.url)));
  assertEquals(await res.json(), { name: "storectl", version, docs: "/docs" });
});

Deno.test("GET /health reports the store, and 503 unhealthy with the cause when it does not answer", async () => {
  assertEquals(await (await setup().app.request("/health")).json(), { status: "healthy", store: "memory" });
  const res = await createApp({ store: down, log: () => {} }).request("/health");
  assertEquals([res.status, await res.json()], [503, {
    status: "unhealthy",
    store: "redis",
    cause: "connect ECONNREFUSED",
  }]);
});

Deno.test("GET /openapi.json is generated from the route schemas, and /docs serves the UI", async () => {
  const { app } = setup();
  const spec = await (await app.request("/openapi.json")).json();
  assertEquals(spec.openapi, "3.1.0");
  assert(spec.paths["/health"].get.responses["503"]);
  assertMatch(await (await app.request("/docs")).text(), /openapi\.json/);
});

Deno.test("GET /docs works offline: Swagger UI's assets are served locally", async () => {
  const { app } = setup();
  await assertDocsOffline((path) => Promise.resolve(app.request(path)));
});

Deno.test("errors are RFC 9457 problem details with a traceId: 404, 405, 413", async () => {
  const { app } = setup();
  const missing = await app.request("/nowhere");
  assertEquals([missing.status, missing.headers.get("content-type")], [404, "application/problem+json"]);
  const body = await missing.json();
  assertEquals([body.title, body.status, body.instance], ["Not Found", 404, "/nowhere"]);
  assertMatch(body.traceId, /^[0-9a-f]{32}$/);
  const wrongMethod = await app.request("/health", { method: "DELETE" });
  assertEquals([wrongMethod.status, wrongMethod.headers.get("allow")], [405, "GET, HEAD"]);
  const big = await app.request("/", { method: "POST", body: "x".repeat(200), headers: { "content-length": "200" } });
  assertEquals([big.status, (await big.json()).title], [413, "Content Too Large"]);
});

Deno.test("422 lists each invalid field; 500 hides internals and logs the traceId", async () => {
  const { app, lines } = setup();
  app.openapi(
    createRoute({
      method: "post",
      path: "/probe",
      request: {
        body: { content: { "application/json": { schema: z.object({ name: z.string(), size: z.number().int() }) } } },
      },
      responses: { 200: { description: "ok" } },
    }),
    (c) => c.body(null, 200),
  );
  app.get("/boom", () => {
    throw new Error("secret internal detail");
  });
  const invalid = await app.request("/probe", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ size: 1.5 }),
  });
  const problem = await invalid.json();
  assertEquals([invalid.status, problem.errors.map((e: { field: string }) => e.field)], [422, ["name", "size"]]);
  const boom = await app.request("/boom");
  const text = await boom.text();
  assertEquals(boom.status, 500);
  assert(!text.includes("secret internal detail") && !text.includes("at "), text);
  const { traceId } = JSON.parse(text);
  assert(lines.some((l) => l.includes(`traceId=${traceId}`) && l.includes("secret internal detail")));
});

Deno.test("a body that is not JSON is a 400 problem, not a 500, on every JSON route", async () => {
  const { app, lines } = setup();
  for (const [path, body] of [["/tasks", "{not json"], ["/tasks/x/cancel", ""], ["/tasks/x/input", "[1,"]]) {
    const res = await app.request(path, { method: "POST", headers: { "content-type": "application/json" }, body });
    assertEquals(res.headers.get("content-type"), "application/problem+json");
    const problem = await res.json();
    assertEquals([res.status, problem.status, problem.instance], [400, 400, path]);
    assertMatch(
      problem.detail,
      /^The request body is not valid JSON \(Malformed JSON in request body\); send a JSON object/,
    );
  }
  assertEquals(lines, []);
});

Deno.test("a body that timed out is a 408 problem, a client gone mid-body a debug line: neither logs an error", async () => {
  const lines: string[] = [];
  const debug: string[] = [];
  const app = createApp({ store: createMemoryStore(), log: (l) => lines.push(l), debug: (l) => debug.push(l) });
  const failing = (error: Error) =>
    new Request("http://x/api/RateLimited/sliding", {
      method: "POST",
      body: new ReadableStream({ pull: (controller) => controller.error(error) }),
      duplex: "half",
    } as RequestInit);
  const timedOut = await app.request(failing(new RequestBodyTimeout(30_000)));
  assertEquals([timedOut.status, timedOut.headers.get("connection")], [408, "close"]);
  const problem = await timedOut.json();
  assertEquals([problem.title, problem.detail], ["Request Timeout", "The request body did not arrive within 30000 ms"]);
  const gone = await app.request(failing(new ClientDisconnected()));
  assertEquals(gone.status, 400);
  await gone.body?.cancel();
  assertEquals(lines, []);
  assertEquals(debug.length, 2);
  assertMatch(debug[1], /^traceId=\w+ POST \/api\/RateLimited\/sliding: The client closed the connection/);
});
