/**
 * The service's HTTP hardening under real clients, on a real server process: asset names that
 * are `Object.prototype` members; lone surrogates in JSON and in URLs, on memory and on Redis; the
 * security headers of the API, the console and `/docs`; cross-site writes, bodies that do not say
 * they are JSON and foreign `Host` names refused; with tokens, a Redis that is down not named to
 * strangers. Run on Deno (`http_hardening_e2e_test.ts`) and on the Node
 * bundle (`http_hardening_node_test.ts`) alike.
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { curl, type ProcessScenario } from "../testing/process_scenarios.ts";
import { testTokens } from "../testing/auth_tokens.ts";
import { startRedis } from "../testing/redis_server.ts";
import { type ServerProcess, startServer } from "../testing/server_process.ts";

/** The paths of asset names that only `Object.prototype` holds. */
async function prototypeAssetPaths(url: string): Promise<string[]> {
  const docs = await (await fetch(`${url}/docs`)).text();
  const dir = docs.match(/\/docs\/(swagger-ui-dist@[^/]+)\//)![1];
  return ["constructor", "toString", "hasOwnProperty", "__proto__"]
    .flatMap((name) => [`/console/assets/${name}`, `/docs/${dir}/${name}`]);
}

/** A JSON request (the body as text, so that it can hold escapes JSON.stringify would not write). */
async function send(server: ServerProcess, method: string, path: string, text?: string) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    ...(text !== undefined && { headers: { "content-type": "application/json" }, body: text }),
  });
  return { status: res.status, body: await res.json() };
}

/** Lone surrogates are refused alike on `storeUrl`'s store: none reaches it, so none turns into U+FFFD there. */
async function loneSurrogates(command: string[], storeUrl: string): Promise<void> {
  await using server = await startServer(command, { STORE_URL: storeUrl });
  const task = (session: string) => String.raw`{"kind":"demo","session_id":"${session}","input":{"steps":0}}`;
  for (const session of [String.raw`s\ud800`, String.raw`s\uDC00`]) {
    const { status, body } = await send(server, "POST", "/tasks", task(session));
    assertEquals([status, body.errors?.[0]?.field], [422, "session_id"], session);
    assertMatch(body.errors[0].message, /lone UTF-16 surrogate \(\\u(d800|dc00)\)/);
  }
  const doc = String.raw`{"title":"T","source":"a\udbff.md","content":"x"}`;
  assertEquals((await send(server, "POST", "/pipelines/documents", doc)).body.errors?.[0]?.field, "source");
  // What Redis would have made of both: a session of its own, not shared with the refused ones.
  assertEquals((await send(server, "POST", "/tasks", task(String.raw`s\ufffd`))).status, 201);
  const listed = await send(server, "GET", `/tasks?session_id=${encodeURIComponent("s\ufffd")}`);
  assertEquals([listed.status, listed.body.total], [200, 1]);
  assertEquals((await send(server, "GET", "/tasks")).body.total, 1);
  for (const [path, field] of [["/tasks?session_id=s%ED%A0%80", "session_id"], ["/tasks/t%ED%B0%80", "task_id"]]) {
    const { status, body } = await send(server, "GET", path);
    assertEquals([status, body.errors?.[0]?.field], [422, field], path);
  }
}

/** Asserts the headers every answer has; answers its Content-Security-Policy. */
function securityHeaders(res: Response, what: string): string {
  assertEquals(
    [res.headers.get("x-content-type-options"), res.headers.get("referrer-policy"), res.headers.get("x-frame-options")],
    ["nosniff", "no-referrer", "DENY"],
    what,
  );
  const csp = res.headers.get("content-security-policy") ?? "";
  assertMatch(csp, /(^|; )frame-ancestors 'none'(;|$)/, what);
  return csp;
}

const DEMO = JSON.stringify({ kind: "demo", input: { steps: 0 } });

export const HARDENING_SCENARIOS: readonly ProcessScenario[] = [
  {
    name: "asset names that are Object.prototype members are 404, with nothing in the log",
    tools: [],
    async run(command) {
      const server = await startServer(command, {}, { captureStderr: true });
      try {
        for (const path of await prototypeAssetPaths(server.url)) {
          const res = await fetch(`${server.url}${path}`);
          await res.body?.cancel();
          assertEquals(res.status, 404, path);
        }
      } finally {
        assertEquals(await server.stop(), 0);
      }
      const log = await server.stderr();
      assert(!/error|TypeError/.test(log), log);
    },
  },
  {
    name: "a lone surrogate in a JSON string or a percent-encoded one in the URL is a 422 naming the field (memory)",
    tools: [],
    run: (command) => loneSurrogates(command, "memory:"),
  },
  {
    name: "a lone surrogate is a 422 on Redis too: nothing reaches Redis to become U+FFFD there",
    tools: ["redis-server"],
    async run(command) {
      await using redis = await startRedis();
      await loneSurrogates(command, redis.url);
    },
  },
  {
    name: "security headers on the API, the console and /docs; the pages' CSP allows their own files only",
    tools: [],
    async run(command) {
      await using server = await startServer(command);
      const get = (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init);
      for (
        const [path, init] of [
          ["/health"],
          ["/tasks"],
          ["/nowhere"],
          ["/tasks", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }],
          ["/api/RateLimited/sliding", { headers: { authorization: `Basic ${btoa("a:b")}` } }],
          ["/openapi.json"],
        ] as [string, RequestInit?][]
      ) {
        const res = await get(path, init);
        await res.body?.cancel();
        assertEquals(securityHeaders(res, path), "default-src 'none'; frame-ancestors 'none'", path);
      }
      const consolePage = await get("/console");
      const html = await consolePage.text();
      const consoleCsp = securityHeaders(consolePage, "/console");
      assertMatch(consoleCsp, /(^|; )script-src 'self'(;|$)/);
      assertMatch(consoleCsp, /(^|; )style-src 'self'(;|$)/);
      const script = html.match(/src="([^"]+\.js)"/)![1];
      const asset = await get(script);
      await asset.body?.cancel();
      securityHeaders(asset, script);
      const docs = await get("/docs");
      await docs.body?.cancel();
      assertMatch(securityHeaders(docs, "/docs"), /(^|; )script-src 'self' 'sha256-[A-Za-z0-9+/]{43}='(;|$)/);
    },
  },
  {
    name: "running open: cross-site writes 403, non-JSON bodies 415, foreign Host 421; curl and same-origin pass",
    tools: ["curl"],
    async run(command) {
      await using server = await startServer(command, { CORS_ORIGINS: "http://app.example" });
      const tasks = `${server.url}/tasks`;
      const json = ["-H", "content-type: application/json", "-d", DEMO];
      for (
        const headers of [
          ["-H", "origin: http://evil.example"],
          ["-H", "origin: http://evil.example", "-H", "sec-fetch-site: cross-site"],
          ["-H", "sec-fetch-site: same-site", "-H", "origin: http://localhost:1"],
        ]
      ) {
        const { status, body } = await curl([...headers, ...json, tasks]);
        assertEquals(status, 403, headers.join(" "));
        assertMatch(body.detail, /add it to CORS_ORIGINS/);
      }
      const clear = await curl(["-X", "POST", "-H", "origin: http://evil.example", `${server.url}/pipelines/clear`]);
      assertEquals(clear.status, 403);
      const plain = await curl(["-H", "content-type: text/plain", "-d", DEMO, tasks]);
      assertEquals(plain.status, 415);
      assertMatch(plain.body.detail, /Content-Type text\/plain .*send JSON with Content-Type: application\/json/);
      for (const host of ["evil.example", "evil.example:8080"]) {
        const rebound = await curl(["-H", `host: ${host}`, `${server.url}/health`]);
        assertEquals(rebound.status, 421, host);
        assertMatch(rebound.body.detail, /'evil\.example'.*ALLOWED_HOSTS/);
      }
      assertEquals((await curl(["-H", "host: evil.example", ...json, tasks])).status, 421);
      assertEquals((await curl([...json, tasks])).status, 201, "curl, no Origin");
      const sameOrigin = ["-H", `origin: ${server.url}`, "-H", "sec-fetch-site: same-origin"];
      assertEquals((await curl([...sameOrigin, ...json, tasks])).status, 201, "the console's own requests");
      const trusted = ["-H", "origin: http://app.example", "-H", "sec-fetch-site: cross-site"];
      assertEquals((await curl([...trusted, ...json, tasks])).status, 201, "an origin of CORS_ORIGINS");
      assertEquals((await curl(["-H", `host: localhost:${new URL(server.url).port}`, tasks])).body.total, 3);
    },
  },
  {
    name: "with tokens, /health and the rate-limited route do not name a Redis that is down; the log does",
    tools: ["redis-server"],
    async run(command) {
      await using redis = await startRedis();
      const tokensFile = await Deno.makeTempFile({ suffix: ".json" });
      await using _file = { [Symbol.asyncDispose]: () => Deno.remove(tokensFile) };
      await Deno.writeTextFile(tokensFile, testTokens().file);
      const server = await startServer(command, { STORE_URL: redis.url, SERVICE_TOKENS_FILE: tokensFile }, {
        captureStderr: true,
      });
      try {
        await redis.stop();
        const address = `127.0.0.1:${redis.port}`;
        const health = await send(server, "GET", "/health");
        const res = await fetch(`${server.url}/api/RateLimited/sliding`, {
          headers: { authorization: `Basic ${btoa("a:b")}` },
        });
        const route = { status: res.status, body: await res.json() };
        assertEquals([health.status, health.body.cause, route.status], [
          503,
          "the store does not answer (the server's log says why)",
          503,
        ]);
        assert(!JSON.stringify([health.body, route.body]).includes(address), JSON.stringify(route.body));
      } finally {
        await server.stop();
      }
      assertMatch(await server.stderr(), new RegExp(`store unreachable .*Redis at 127\\.0\\.0\\.1:${redis.port}`));
    },
  },
  {
    name: "running open, a name of ALLOWED_HOSTS is answered too; others still 421",
    tools: ["curl"],
    async run(command) {
      await using server = await startServer(command, { ALLOWED_HOSTS: "svc.example,.corp.example" });
      const health = `${server.url}/health`;
      for (const host of ["svc.example", "a.corp.example:8080", "localhost"]) {
        assertEquals((await curl(["-H", `host: ${host}`, health])).status, 200, host);
      }
      const other = await curl(["-H", "host: evil.example", health]);
      assertEquals(other.status, 421);
      assertMatch(other.body.detail, /svc\.example, \.corp\.example .*ALLOWED_HOSTS/);
    },
  },
];
