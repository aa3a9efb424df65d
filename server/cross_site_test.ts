import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { testTokens } from "../testing/auth_tokens.ts";
import { createTokenSet, parseTokens } from "./auth/tokens.ts";
import { testApp, type TestServiceOptions } from "../testing/service.ts";

const DEMO = JSON.stringify({ kind: "demo", input: { steps: 0 } });
const JSON_TYPE = { "content-type": "application/json" };

/** The app of `options`, its log lines kept. */
function setup(options: TestServiceOptions = {}) {
  const lines: string[] = [];
  const served = testApp({ ...options, log: (line) => lines.push(line) });
  const app = served.app;
  const send = async (method: string, path: string, headers: Record<string, string>, body?: string) => {
    const res = await app.request(path, { method, headers, body });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const total = async (headers: Record<string, string> = {}) => (await send("GET", "/tasks", headers)).body.total;
  return { app, lines, send, total, [Symbol.asyncDispose]: () => served.service.close() };
}

/** The state-changing routes a forged request went for: create, add, clear, delete, the rate-limited route. */
const WRITES: [string, string, string | undefined][] = [
  ["POST", "/tasks", DEMO],
  ["POST", "/pipelines/documents", JSON.stringify({ title: "T", source: "t.md", content: "planted" })],
  ["POST", "/pipelines/clear", undefined],
  ["DELETE", "/tasks/some-task", undefined],
  ["POST", "/api/RateLimited/sliding", undefined],
];

Deno.test("a state-changing request from another origin is a 403 naming CORS_ORIGINS, and changes nothing", async () => {
  await using served = setup();
  const { send, total, lines } = served;
  const foreign: [string, Record<string, string>][] = [
    ["Origin (a browser without Sec-Fetch-*)", { origin: "http://evil.example" }],
    ["Sec-Fetch-Site: cross-site", { origin: "http://evil.example", "sec-fetch-site": "cross-site" }],
    ["another port of the same host", { origin: "http://localhost:3000", "sec-fetch-site": "same-site" }],
    ["localhost against 127.0.0.1", { origin: "http://127.0.0.1", "sec-fetch-site": "cross-site" }],
    ["a sandboxed frame", { origin: "null", "sec-fetch-site": "cross-site" }],
    ["Sec-Fetch-Site without Origin", { "sec-fetch-site": "cross-site" }],
  ];
  for (const [what, headers] of foreign) {
    for (const [method, path, body] of WRITES) {
      const res = await send(method, path, { ...JSON_TYPE, ...headers }, body);
      assertEquals([res.status, res.body?.title], [403, "Forbidden"], `${what}: ${method} ${path}`);
      assertMatch(res.body.detail, /CORS_ORIGINS/);
      const from = headers.origin && headers.origin !== "null"
        ? `A page of ${headers.origin} `
        : "A page of another site ";
      assert(res.body.detail.startsWith(from), res.body.detail);
    }
  }
  assertEquals(await total(), 0);
  assertEquals(lines, []);
});

Deno.test("same-origin requests, requests without Origin (curl, ctl) and reads from anywhere pass", async () => {
  await using served = setup();
  const { send, total } = served;
  const passing: Record<string, string>[] = [
    {},
    { origin: "http://localhost", "sec-fetch-site": "same-origin" },
    { origin: "http://localhost" }, // an older browser: no Sec-Fetch-Site, Origin is the service's own
    { "sec-fetch-site": "none" }, // typed by the user
  ];
  for (const headers of passing) {
    assertEquals(
      (await send("POST", "/tasks", { ...JSON_TYPE, ...headers }, DEMO)).status,
      201,
      JSON.stringify(headers),
    );
  }
  const cross = { origin: "http://evil.example", "sec-fetch-site": "cross-site" };
  assertEquals((await send("GET", "/tasks", cross)).status, 200);
  assertEquals((await send("HEAD", "/health", cross)).status, 200);
  assertEquals(await total(), passing.length);
});

Deno.test("an origin in CORS_ORIGINS may change state; with tokens the rule holds as well", async () => {
  const tokens = testTokens();
  const trusted = "https://app.example.com";
  for (
    const auth of [{ env: { CORS_ORIGINS: trusted } }, {
      env: { CORS_ORIGINS: trusted },
      tokens: createTokenSet(parseTokens(tokens.file, "test")),
    }]
  ) {
    await using served = setup(auth);
    const { send, total } = served;
    const bearer: Record<string, string> = auth.tokens ? { authorization: `Bearer ${tokens.admin}` } : {};
    const from = (origin: string) => ({ ...JSON_TYPE, ...bearer, origin, "sec-fetch-site": "cross-site" });
    const allowed = await send("POST", "/tasks", from(trusted), DEMO);
    assertEquals(allowed.status, 201, auth.tokens ? "with tokens" : "open");
    const refused = await send("POST", "/tasks", from("https://evil.example"), DEMO);
    assertEquals(refused.status, 403, auth.tokens ? "with tokens" : "open");
    assertMatch(refused.body.detail, /add it to CORS_ORIGINS/);
    assertEquals(await total(bearer), 1);
  }
});
