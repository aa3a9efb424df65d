import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { createMemoryStore, type Store, StoreUnavailableError } from "../lib/store/mod.ts";
import { TaskInputError } from "../lib/tasks/mod.ts";
import { PipelineInputError } from "../lib/pipelines/mod.ts";
import { testApp } from "../testing/service.ts";
import { Conflict, InvalidInput, NotFound, ProblemException, TooLarge, UnsupportedMediaType } from "./errors.ts";

const MESSAGE = "Redis at 127.0.0.1:6390 is not reachable (connection refused); retrying";

/** Port methods that do not talk to the store: they work with it down. */
const LOCAL = new Set<string | symbol>(["retain", "shareEvents", "newRootId"]);

/** A port whose every method that reads or writes rejects as a store that does not answer. */
function unavailable<T extends object>(port: T): T {
  return new Proxy(port, {
    get: (target, name) =>
      typeof target[name as keyof T] === "function" && !LOCAL.has(name)
        ? () => Promise.reject(new StoreUnavailableError(MESSAGE))
        : target[name as keyof T],
  });
}

function downStore(): Store {
  const store = createMemoryStore();
  return {
    ...store,
    tasks: unavailable(store.tasks),
    events: unavailable(store.events),
    documents: unavailable(store.documents),
    idempotency: unavailable(store.idempotency),
    webhooks: unavailable(store.webhooks),
  };
}

Deno.test("a store that does not answer is a 503 problem with Retry-After from every route, streams included", async () => {
  const lines: string[] = [];
  await using served = testApp({
    store: downStore(),
    log: (l) => lines.push(l),
    env: { CHANNEL_SCOPES: "TASK,SESSION,GLOBAL" },
  });
  const { app } = served;
  const json = { "content-type": "application/json" };
  for (
    const [method, path, body, headers] of [
      ["GET", "/tasks"],
      ["POST", "/tasks", { kind: "demo" }],
      ["POST", "/tasks", { kind: "demo" }, { "idempotency-key": "k" }],
      ["GET", "/tasks/x"],
      ["GET", "/tasks/x/tree"],
      ["GET", "/tasks/x/children"],
      ["POST", "/tasks/x/cancel"],
      ["POST", "/tasks/x/input", { input: 1 }],
      ["DELETE", "/tasks/x"],
      ["GET", "/tasks/x/stream"],
      ["GET", "/sessions/s/stream?replay=false"],
      ["GET", "/stream?replay=false"],
      ["GET", "/pipelines/status"],
      ["GET", "/webhooks"],
      ["GET", "/webhooks/w/deliveries"],
      ["POST", "/pipelines/clear"],
      ["POST", "/pipelines/run", { documents: [{ title: "t", content: "c", source: "s" }] }],
    ] as const
  ) {
    const res = await app.request(path, {
      method,
      headers: { ...(body && json), ...headers },
      ...(body && { body: JSON.stringify(body) }),
    });
    const problem = await res.json();
    const where = `${method} ${path}`;
    assertEquals([res.status, res.headers.get("content-type"), res.headers.get("retry-after")], [
      503,
      "application/problem+json",
      "1",
    ], where);
    assertEquals([problem.title, problem.detail], [
      "Service Unavailable",
      `The store did not answer: ${MESSAGE}. Try again shortly`,
    ], where);
  }
  assertEquals(lines.filter((l) => l.startsWith("error")), [], "an outage is not a server error: no error lines");
});

Deno.test("typed errors thrown anywhere become RFC 9457 problems at the root, with their status", async () => {
  const lines: string[] = [];
  const { app } = testApp({ log: (l) => lines.push(l) });
  const cases: [Error, number, string, Record<string, string>?][] = [
    [new NotFound("No thing 'x'"), 404, "Not Found"],
    [new Conflict("It is busy", { "retry-after": "2" }), 409, "Conflict", { "retry-after": "2" }],
    [new TooLarge("Too big"), 413, "Content Too Large"],
    [new UnsupportedMediaType("Send JSON"), 415, "Unsupported Media Type"],
    [new InvalidInput("1 invalid field", [{ field: "a", message: "bad" }]), 422, "Unprocessable Content"],
    [new TaskInputError("Unknown task kind 'x'", [{ field: "kind", message: "no" }]), 422, "Unprocessable Content"],
    [new PipelineInputError("Bad path", [{ field: "path", message: "no" }]), 422, "Unprocessable Content"],
    [new ProblemException(429, "Slow down"), 429, "Too Many Requests"],
  ];
  for (const [i, [error]] of cases.entries()) {
    app.get(`/probe/${i}`, () => {
      throw error;
    });
  }
  for (const [i, [error, status, title, headers]] of cases.entries()) {
    const res = await app.request(`/probe/${i}`);
    const problem = await res.json();
    assertEquals([res.status, res.headers.get("content-type")], [status, "application/problem+json"], error.name);
    assertEquals([problem.status, problem.title, problem.detail, problem.instance], [
      status,
      title,
      error.message,
      `/probe/${i}`,
    ]);
    assertMatch(problem.traceId, /^[0-9a-f]{32}$/);
    if ("errors" in error) assertEquals(problem.errors, error.errors);
    for (const [name, value] of Object.entries(headers ?? {})) assertEquals(res.headers.get(name), value);
  }
  assertEquals(lines, []);
});

Deno.test("the routes declare no per-route error mapping and no `as never` casts", async () => {
  for (const file of ["routes/tasks.ts", "routes/pipelines.ts", "routes/streams.ts"]) {
    const text = await Deno.readTextFile(new URL(file, import.meta.url));
    assert(!text.includes("as never"), `${file} still casts with \`as never\``);
    assert(!text.includes("onError"), `${file} maps errors itself`);
    assert(!/catch \(error\)/.test(text), `${file} catches errors to map them`);
  }
});
