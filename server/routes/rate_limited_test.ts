import { assert, assertEquals, assertMatch } from "../../testing/assert.ts";
import { createMemoryStore, type Store, StoreUnavailableError } from "../../lib/store/mod.ts";
import { testApp } from "../../testing/service.ts";
import { basicIdentity, MAX_IDENTITY_BYTES } from "./rate_limited.ts";

const PATH = "/api/RateLimited/sliding";
const basic = (value: string) => `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(value)))}`;

function setup(store?: Store) {
  const clock = { ms: 0 };
  const { app } = testApp({ store: store ?? createMemoryStore({ now: () => clock.ms }) });
  const hit = async (init: RequestInit & { path?: string } = {}, auth = basic("alice:secret")) =>
    await app.request(init.path ?? PATH, { method: "GET", ...init, headers: { authorization: auth, ...init.headers } });
  return { clock, app, hit };
}

Deno.test("basicIdentity() takes the decoded value before the first colon, else refuses", () => {
  assertEquals(basicIdentity(basic("alice:pw:with:colons")), "alice");
  assertEquals(basicIdentity(basic("älice✓:pw")), "älice✓");
  assertEquals(basicIdentity(`basic   ${btoa("bob:x")}`), "bob");
  assertEquals(basicIdentity(basic("nocolon")), "nocolon");
  for (
    const bad of [
      undefined,
      "",
      "Basic",
      "Basic ",
      "Bearer abc",
      "Basic !!!",
      "Basic YWxpY2U6cHc=extra",
      basic(":pw"),
      basic(""),
    ]
  ) {
    assertEquals(basicIdentity(bad), undefined, String(bad));
  }
  assertEquals(basicIdentity(`Basic ${btoa("\xff\xfe:pw")}`), undefined, "not UTF-8");
});

Deno.test("rate-limited route: every unusable Authorization header is 401 with no body, asking for Basic", async () => {
  const { hit } = setup();
  const challenge = 'Basic realm="storectl rate-limited route", charset="UTF-8"';
  for (
    const auth of ["", "Basic", "Basic ", "Basic %%%", "Token abc", "Bearer a-token", basic(":secret"), basic("")]
  ) {
    const res = await hit({}, auth);
    assertEquals([res.status, await res.text(), res.headers.get("www-authenticate")], [401, "", challenge], auth);
  }
  const none = await setup().app.request(PATH);
  assertEquals([none.status, await none.text(), none.headers.get("www-authenticate")], [401, "", challenge]);
});

Deno.test("rate-limited route: the specification's rule-6 scenario with an injected clock", async () => {
  const { clock, hit } = setup();
  const statuses: number[] = [];
  for (let i = 0; i < 20; i++, clock.ms += 500) {
    const res = await hit({ method: i % 2 ? "POST" : "GET" });
    statuses.push(res.status);
    if (res.status === 200) assertEquals(await res.text(), "");
  }
  assertEquals(statuses, [...Array(10).fill(200), ...Array(10).fill(429)]);
  clock.ms = 30_000; // the first request has left the window
  assertEquals((await hit()).status, 200);
  assertEquals((await hit()).status, 429);
});

Deno.test("rate-limited route: 429 is an RFC 9457 problem with status and traceId, Retry-After and RateLimit headers", async () => {
  const { clock, hit } = setup();
  for (let i = 0; i < 10; i++) await hit();
  clock.ms = 4_000;
  const res = await hit();
  assertEquals([res.status, res.headers.get("content-type")], [429, "application/problem+json"]);
  const body = await res.json();
  assertEquals(body.status, 429); // the specification's fields
  assertMatch(body.traceId, /^[0-9a-f]{32}$/);
  assertEquals([body.type, body.title, body.instance], ["about:blank", "Too Many Requests", PATH]);
  assertEquals(body.detail, "At most 10 requests per 30 s; retry after 26 s");
  assertEquals(res.headers.get("retry-after"), "26");
  assertEquals(res.headers.get("ratelimit-policy"), '"sliding";q=10;w=30');
  assertEquals(res.headers.get("ratelimit"), '"sliding";r=0;t=26');
  const ok = await setup().hit();
  assertEquals(ok.headers.get("ratelimit"), '"sliding";r=9;t=30');
});

Deno.test("rate-limited route: any casing shares one budget, HEAD spends none, identities are separate", async () => {
  const { hit } = setup();
  for (let i = 0; i < 5; i++) await hit({ path: "/api/ratelimited/sliding" });
  for (let i = 0; i < 3; i++) assertEquals((await hit({ method: "HEAD" })).status, 200);
  for (let i = 0; i < 5; i++) assertEquals((await hit({ path: "/API/RATELIMITED/SLIDING" })).status, 200);
  assertEquals((await hit()).status, 429);
  assertEquals((await hit({}, basic("bob:x"))).status, 200);
  assertEquals((await hit({ method: "PUT" })).status, 405);
});

Deno.test("rate-limited route: 200 concurrent requests for one identity give exactly 10 × 200", async () => {
  const { hit } = setup(createMemoryStore());
  const statuses = await Promise.all(Array.from({ length: 200 }, () => hit().then((r) => r.status)));
  assertEquals(statuses.filter((s) => s === 200).length, 10);
  assertEquals(statuses.filter((s) => s === 429).length, 190);
});

Deno.test("rate-limited route: an unreachable store is a 503 problem, never a 200", async () => {
  const down: Store = {
    ...createMemoryStore(),
    kind: "redis",
    ping: () => Promise.reject(new Error("down")),
    hitSlidingWindow: () => Promise.reject(new Error("connect ECONNREFUSED")),
    close: () => Promise.resolve(),
  };
  const res = await setup(down).hit();
  assertEquals([res.status, res.headers.get("content-type")], [503, "application/problem+json"]);
  assert((await res.json()).traceId);
});

Deno.test("rate-limited route: a StoreUnavailableError's message is the 503 detail; other errors stay in the log", async () => {
  const failing = (error: Error): Store => ({
    ...createMemoryStore(),
    kind: "redis",
    ping: () => Promise.reject(error),
    hitSlidingWindow: () => Promise.reject(error),
    close: () => Promise.resolve(),
  });
  const message = "Redis at 127.0.0.1:6390 is not reachable (connection refused); retrying";
  for (
    const [error, detail] of [
      [new StoreUnavailableError(message), `The rate limit cannot be checked: ${message}. Try again shortly`],
      [
        new Error("internal words"),
        "The rate limit cannot be checked: the store does not answer (the server's log says why). Try again shortly",
      ],
    ] as const
  ) {
    const lines: string[] = [];
    const { app } = testApp({ store: failing(error), log: (line) => lines.push(line) });
    const res = await app.request(PATH, { headers: { authorization: basic("alice:x") } });
    assertEquals([res.status, (await res.json()).detail], [503, detail]);
    assertEquals(lines.length, 1);
    assertMatch(lines[0], /^store unreachable traceId=[0-9a-f]{32} path=\/api\/RateLimited\/sliding: /);
    assert(lines[0].endsWith(`: ${error.message}`), lines[0]);
  }
});

Deno.test("basicIdentity(): identities over MAX_IDENTITY_BYTES (256, UTF-8) are refused", () => {
  assertEquals(MAX_IDENTITY_BYTES, 256);
  assertEquals(basicIdentity(basic(`${"a".repeat(256)}:pw`)), "a".repeat(256));
  assertEquals(basicIdentity(basic("é".repeat(128))), "é".repeat(128), "128 two-byte characters are 256 bytes");
  assertEquals(basicIdentity(basic(`${"a".repeat(257)}:pw`)), undefined);
  assertEquals(basicIdentity(basic(`${"é".repeat(129)}:pw`)), undefined, "129 characters but 258 bytes");
  assertEquals(basicIdentity(basic(`alice:${"s".repeat(10_000)}`)), "alice", "the secret's length does not matter");
});

Deno.test("rate-limited route: a 45 KB identity is 401 with no body and is not counted", async () => {
  const counted: string[] = [];
  const memory = createMemoryStore();
  const store: Store = {
    ...memory,
    hitSlidingWindow: (key, ...rest) => (counted.push(key), memory.hitSlidingWindow(key, ...rest)),
  };
  const { hit } = setup(store);
  const res = await hit({}, basic(`${"x".repeat(45 * 1024)}:secret`));
  assertEquals([res.status, await res.text()], [401, ""]);
  assertEquals(counted, []);
});
