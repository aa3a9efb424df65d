import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { testApp } from "../testing/service.ts";
import { entry } from "./console/assets.gen.ts";
import { sseEvents } from "../testing/sse.ts";

/** The headers every answer carries, whatever made it. */
function assertSecurityHeaders(res: Response, what: string): void {
  assertEquals(
    [res.headers.get("x-content-type-options"), res.headers.get("referrer-policy"), res.headers.get("x-frame-options")],
    ["nosniff", "no-referrer", "DENY"],
    what,
  );
  assertMatch(res.headers.get("content-security-policy") ?? "", /(^|; )frame-ancestors 'none'(;|$)/, what);
}

/** A policy as a map of directive → sources. */
const directives = (policy: string) =>
  new Map(policy.split(";").map((d) => d.trim().split(/\s+/)).map(([name, ...sources]) => [name, sources]));

const basic = (value: string) => `Basic ${btoa(value)}`;

Deno.test("every answer carries nosniff, no-referrer, X-Frame-Options DENY and a CSP with frame-ancestors 'none'", async () => {
  await using served = testApp({ env: { RATE_LIMIT_MAX: "1", RATE_LIMIT_WINDOW_SECONDS: "60" } });
  const { app } = served;
  const json = { "content-type": "application/json" };
  const created = await app.request("/tasks", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ kind: "demo", input: { steps: 0 } }),
  });
  const { task_id } = await created.json();
  assertSecurityHeaders(created, "201 POST /tasks");
  const requests: [string, RequestInit?][] = [
    ["/"],
    ["/health"],
    ["/openapi.json"],
    ["/tasks"],
    [`/tasks/${task_id}`],
    ["/nowhere"],
    ["/tasks", { method: "PUT" }],
    ["/tasks", { method: "POST", headers: json, body: "{}" }],
    ["/tasks", { method: "POST", headers: { "content-type": "application/xml" }, body: "<a/>" }],
    ["/api/RateLimited/sliding", { headers: { authorization: basic("alice:x") } }],
    ["/api/RateLimited/sliding", { headers: { authorization: basic("alice:x") } }],
    ["/api/RateLimited/sliding"],
    ["/api/RateLimited/sliding", { method: "HEAD" }],
    [`/console/assets/${entry.js}`],
    [`/console/assets/${entry.css}`],
  ];
  const statuses = [];
  for (const [path, init] of requests) {
    const res = await app.request(path, init);
    statuses.push(res.status);
    await res.body?.cancel();
    assertSecurityHeaders(res, `${init?.method ?? "GET"} ${path} (${res.status})`);
  }
  assertEquals(statuses, [200, 200, 200, 200, 200, 404, 405, 422, 415, 200, 429, 401, 200, 200, 200]);
  const stream = await app.request(`/tasks/${task_id}/stream`);
  assertEquals(stream.headers.get("content-type"), "text/event-stream");
  assertSecurityHeaders(stream, "an event stream");
  await sseEvents(stream.body!);
  // The API's answers are data, never a page: they may load nothing at all.
  assertEquals(directives((await app.request("/tasks")).headers.get("content-security-policy")!).get("default-src"), [
    "'none'",
  ]);
});

Deno.test("/console's CSP lets the page load its own script, stylesheet and API only: nothing inline, nothing else", async () => {
  const { app } = testApp();
  const res = await app.request("/console");
  assertSecurityHeaders(res, "/console");
  const csp = directives(res.headers.get("content-security-policy")!);
  assertEquals(Object.fromEntries(csp), {
    "default-src": ["'none'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "base-uri": ["'none'"],
    "form-action": ["'none'"],
    "frame-ancestors": ["'none'"],
  });
});

Deno.test("/docs's CSP allows its own assets and exactly its one inline script, by hash", async () => {
  const { app } = testApp();
  const res = await app.request("/docs");
  assertSecurityHeaders(res, "/docs");
  const html = await res.text();
  const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  assertEquals(inline.length, 1, html);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(inline[0]));
  const hash = `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`;
  const csp = directives(res.headers.get("content-security-policy")!);
  assertEquals(csp.get("script-src"), ["'self'", hash]);
  assertEquals(csp.get("default-src"), ["'none'"]);
  assertEquals(csp.get("connect-src"), ["'self'"]);
  assert(!res.headers.get("content-security-policy")!.includes("unsafe-eval"));
  // The same page twice: the same hash.
  assertEquals(
    (await app.request("/docs")).headers.get("content-security-policy"),
    res.headers.get("content-security-policy"),
  );
});
