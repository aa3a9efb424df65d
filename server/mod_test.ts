import { createRoute, z } from "@hono/zod-openapi";
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { createMemoryStore, type Store, StoreUnavailableError } from "../lib/store/mod.ts";
import { testTokens } from "../testing/auth_tokens.ts";
import { createTokenSet, parseTokens } from "./auth/tokens.ts";
import { ClientDisconnected, RequestBodyTimeout } from "../lib/runtime/mod.ts";
import { testApp } from "../testing/service.ts";
import { assertDocsOffline } from "../testing/docs_page.ts";

const down: Store = {
  ...createMemoryStore(),
  kind: "redis",
  ping: () => Promise.reject(new Error("connect ECONNREFUSED")),
  hitSlidingWindow: () => Promise.reject(new Error("connect ECONNREFUSED")),
  close: () => Promise.resolve(),
};

function setup() {
  const lines: string[] = [];
  const { app } = testApp({ env: { BODY_LIMIT_BYTES: "100" }, log: (line) => lines.push(line) });
  return { app, lines };
}

Deno.test("GET / names the service, its version and docs", async () => {
  const res = await setup().app.request("/");
  const { version } = JSON.parse(await Deno.readTextFile(new URL("../package.json", import.meta.url)));
  assertEquals(await res.json(), { name: "storectl", version, docs: "/docs" });
});

Deno.test("GET /health reports the store, and 503 unhealthy with the cause when it does not answer", async () => {
  assertEquals(await (await setup().app.request("/health")).json(), { status: "healthy", store: "memory" });
  const res = await testApp({ store: down }).app.request("/health");
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
  for (const [path, body] of [["/tasks", "{not json"], ["/tasks/x/cancel", "{"], ["/tasks/x/input", "[1,"]]) {
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
  const { app } = testApp({ log: (l) => lines.push(l), debug: (l) => debug.push(l) });
  const failing = (error: Error) =>
    new Request("http://localhost/api/RateLimited/sliding", {
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

const JSON_ROUTES: readonly [string, string][] = [
  ["/tasks", JSON.stringify({ kind: "demo", input: { steps: 0 } })],
  ["/tasks/nope/cancel", JSON.stringify({ cascade: false })],
  ["/tasks/nope/input", JSON.stringify({ input: "x" })],
  ["/pipelines/run", JSON.stringify({ documents: [{ title: "T", content: "Text.", source: "t.md" }] })],
  ["/pipelines/documents", JSON.stringify({ title: "T", content: "Text.", source: "t.md" })],
  ["/pipelines/prepare", JSON.stringify({ chunk_size: 200 })],
  ["/pipelines/full", JSON.stringify({ chunk_size: 200 })],
];

/** What the route answers to the same body sent as application/json: the status to expect. */
async function asJson(app: ReturnType<typeof setup>["app"], path: string, body: string) {
  const res = await app.request(path, { method: "POST", headers: { "content-type": "application/json" }, body });
  await res.body?.cancel();
  return res.status;
}

Deno.test("JSON sent without a type, as text/plain or as a form (curl -d) is a 415 on every JSON route, changing nothing", async () => {
  const { app, lines } = setup();
  const tasks = async () => (await (await app.request("/tasks")).json()).total;
  for (const [path, body] of JSON_ROUTES) {
    const expected = await asJson(app, path, body);
    assert(expected !== 415 && expected < 500, `${path}: ${expected}`);
    const before = await tasks();
    // What a page of another site can send without a preflight, and what curl -d sends.
    for (const type of [undefined, "text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded"]) {
      const res = await app.request(path, {
        method: "POST",
        headers: type ? { "content-type": type } : {},
        body: new TextEncoder().encode(body), // bytes: fetch adds no Content-Type of its own
      });
      const problem = await res.json();
      assertEquals(res.status, 415, `${path} as ${type ?? "no type"}`);
      assertMatch(problem.detail, /send JSON with Content-Type: application\/json/);
      assert(problem.detail.includes(type?.split(";")[0] ?? "no Content-Type"), problem.detail);
    }
    assertEquals(await tasks(), before, `${path}: a refused body made a task`);
  }
  assertEquals(lines, []);
});

Deno.test("multipart, or a body that is not JSON under another type, is a 415 problem naming application/json", async () => {
  const lines: string[] = [];
  const { app } = testApp({ log: (line) => lines.push(line) });
  for (const [path] of JSON_ROUTES) {
    const form = new FormData();
    form.set("kind", "demo");
    for (
      const [init, named] of [
        [{ body: form }, "multipart/form-data"],
        [{ body: "kind=demo", headers: { "content-type": "application/x-www-form-urlencoded" } }, "form-urlencoded"],
        [{ body: "hello", headers: { "content-type": "text/plain" } }, "text/plain"],
        [{ body: new TextEncoder().encode("hello") }, "no Content-Type"],
        [{ body: "<a/>", headers: { "content-type": "application/xml" } }, "application/xml"],
      ] as const
    ) {
      const res = await app.request(path, { method: "POST", ...init });
      const problem = await res.json();
      assertEquals([res.status, res.headers.get("content-type"), problem.title], [
        415,
        "application/problem+json",
        "Unsupported Media Type",
      ], `${path} ${named}`);
      assert(problem.detail.includes(named), `${path}: ${problem.detail} should name ${named}`);
      assertMatch(problem.detail, /send JSON with Content-Type: application\/json/);
    }
  }
  assertEquals(lines, []);
});

Deno.test("an empty body with Content-Type: application/json means no options: cancel applies its defaults", async () => {
  const { app } = setup();
  const created = await app.request("/tasks", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ kind: "demo", input: { steps: 100, delay_ms: 50 } }),
  });
  const { task_id } = await created.json();
  const res = await app.request(`/tasks/${task_id}/cancel`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "",
  });
  assertEquals([res.status, await res.json()], [200, { cancelled_count: 1 }]);
  const prepare = await app.request("/pipelines/prepare", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "  ",
  });
  assertEquals([prepare.status, (await prepare.json()).detail], [
    409,
    "No source folder is configured: set PIPELINE_SOURCE_DIR and restart the server",
  ]);
  const required = await app.request("/tasks", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "",
  });
  assertEquals([required.status, (await required.json()).errors[0].field], [422, "kind"]);
});

Deno.test("TRACE and TRACK are 405 with Allow like any method a path lacks; unknown paths stay 404", async () => {
  const { app } = setup();
  // `new Request()` refuses TRACE and TRACK, as a runtime's server does not: hand the app one it built.
  const request = (method: string, path: string) => {
    const req = new Request(`http://localhost${path}`, { method: "POST", body: "x" });
    Object.defineProperty(req, "method", { value: method });
    return req;
  };
  for (
    const [method, path, allow] of [
      ["TRACE", "/tasks", "GET, HEAD, POST"],
      ["TRACK", "/tasks/x", "GET, HEAD, DELETE"],
      ["PUT", "/tasks", "GET, HEAD, POST"],
      ["PATCH", "/tasks/x/cancel", "POST"],
      ["TRACE", "/health", "GET, HEAD"],
      ["DELETE", "/", "GET, HEAD"],
      ["TRACE", "/api/RateLimited/sliding", "GET, POST, HEAD"],
    ]
  ) {
    const res = await app.fetch(request(method, path));
    const problem = await res.json();
    assertEquals([res.status, res.headers.get("allow"), problem.title], [405, allow, "Method Not Allowed"], path);
  }
  const nowhere = await app.fetch(request("TRACE", "/nowhere"));
  assertEquals(nowhere.status, 404);
});

Deno.test("asset names that are Object.prototype members are 404 under /console/assets and /docs, logging nothing", async () => {
  const { app, lines } = setup();
  const { version } = await import("./docs/assets.ts");
  for (const name of ["constructor", "toString", "hasOwnProperty", "__proto__", "valueOf", "__defineGetter__"]) {
    for (const path of [`/console/assets/${name}`, `/docs/swagger-ui-dist@${version}/${name}`]) {
      const res = await app.request(path);
      assertEquals([res.status, res.headers.get("content-type")], [404, "application/problem+json"], path);
      await res.body?.cancel();
    }
  }
  assertEquals(lines, []);
});

Deno.test("with tokens, /health and the rate-limited route's 503 do not name the store's address to strangers; the log does", async () => {
  const message = "Redis at 10.0.0.7:6390 is not reachable (connection refused); retrying";
  const failing: Store = {
    ...createMemoryStore(),
    kind: "redis",
    ping: () => Promise.reject(new StoreUnavailableError(message)),
    hitSlidingWindow: () => Promise.reject(new StoreUnavailableError(message)),
    close: () => Promise.resolve(),
  };
  const tokens = createTokenSet(parseTokens(testTokens().file, "test"));
  for (const auth of [{ tokens }, {}]) {
    const lines: string[] = [];
    const { app } = testApp({ store: failing, log: (line) => lines.push(line), ...auth });
    const health = await app.request("/health");
    const route = await app.request("/api/RateLimited/sliding", { headers: { authorization: `Basic ${btoa("a:b")}` } });
    assertEquals([health.status, route.status], [503, 503]);
    const answers = JSON.stringify([await health.json(), await route.json()]);
    // Running open, whoever calls may already do anything: the answers help them with the cause.
    assertEquals(answers.includes("10.0.0.7:6390"), !auth.tokens, answers);
    assertMatch(answers, /the store does not answer|not reachable/);
    assert(lines.some((line) => line.endsWith(`: ${message}`)), lines.join("\n"));
  }
});
