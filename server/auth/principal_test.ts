/**
 * Every route × (no token, unknown token, token without the scope, token with it), on memory and
 * on a real redis-server; the open routes stay open; tokens are never echoed nor read from URLs.
 */
import { assert, assertEquals, assertMatch } from "../../testing/assert.ts";
import {
  concrete,
  namedNeed,
  OPEN_ROUTES,
  ROUTE_SCOPES,
  testTokens,
  tokensMeeting,
  tokenWithout,
} from "../../testing/auth_tokens.ts";
import { startRedis } from "../../testing/redis_server.ts";
import { missingTools } from "../../testing/tools.ts";
import { createMemoryStore, openStore, type Store } from "../../lib/store/mod.ts";
import { authApp } from "../../testing/auth_app.ts";
import { testApp } from "../../testing/service.ts";
import { callerOf } from "../mod.ts";

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function suite(t: Deno.TestContext, open: () => Promise<Store>) {
  const tokens = testTokens();
  await using api = await authApp(await open(), tokens);

  for (const [method, pattern, scope] of ROUTE_SCOPES) {
    const path = concrete(pattern);
    const body = method === "POST" ? {} : undefined;
    await t.step(`${method} ${pattern} needs ${scope}`, async () => {
      const none = await api.call(method, path, {}, body);
      assertEquals(none.status, 401, `no token: ${none.text}`);
      assertEquals(none.res.headers.get("content-type"), "application/problem+json");
      assertMatch(none.res.headers.get("www-authenticate") ?? "", /^Bearer /);
      assertMatch(none.body.detail, /Authorization: Bearer <token>/);

      const unknown = `nope-${crypto.randomUUID()}`;
      const wrong = await api.call(method, path, bearer(unknown), body);
      assertEquals(wrong.status, 401, `unknown token: ${wrong.text}`);
      assertMatch(wrong.res.headers.get("www-authenticate") ?? "", /^Bearer .*error="invalid_token"/);
      assert(!wrong.text.includes(unknown), "the token is echoed");

      const basic = await api.call(method, path, { authorization: `Basic ${btoa("alice:secret")}` }, body);
      assertEquals(basic.status, 401, `Basic: ${basic.text}`);
      assertMatch(basic.body.detail, /must be 'Bearer <token>'/);

      const lacking = await api.call(method, path, bearer(tokenWithout(tokens, scope)), body);
      assertEquals(lacking.status, 403, `token without ${scope}: ${lacking.text}`);
      assert(lacking.body.detail.includes(`lacks the scope ${namedNeed(scope)}`), lacking.body.detail);
      assertEquals(lacking.body.title, "Forbidden");
      assert(!lacking.text.includes(tokenWithout(tokens, scope)), "the token is echoed");

      for (const token of [...tokensMeeting(tokens, scope), tokens.admin]) {
        const allowed = await api.call(method, path, bearer(token), body);
        // A route that admits either of two scopes lets both in; the call may then need the other (a2a_test.ts).
        const callRefused = typeof scope !== "string" && allowed.status === 403 &&
          !allowed.body.detail.includes(namedNeed(scope));
        assert(
          ![401, 403].includes(allowed.status) || callRefused,
          `${method} ${path} with ${scope}: ${allowed.status} ${allowed.text}`,
        );
      }
    });
  }

  await t.step(
    "/, /health, /openapi.json and /docs stay open; the rate-limited route keeps its Basic identity",
    async () => {
      for (const route of OPEN_ROUTES) {
        const [method, path] = route.split(" ");
        assertEquals((await api.call(method, path)).status, 200, route);
      }
      const limited = await api.call("GET", "/api/RateLimited/sliding", { authorization: `Basic ${btoa("bob:x")}` });
      assertEquals(limited.status, 200);
    },
  );

  await t.step(
    "a token in the URL is refused, saying to use a ticket; a path no route serves needs a token too",
    async () => {
      for (const param of ["access_token", "token", "api_key"]) {
        const res = await api.call("GET", `/tasks?${param}=${tokens.admin}`);
        assertEquals(res.status, 401, param);
        assertMatch(res.body.detail, /never accepted in the URL.*POST \/stream-tickets.*\?ticket=/);
        assert(!res.text.includes(tokens.admin));
      }
      assertEquals((await api.call("GET", "/nowhere")).status, 401);
      assertEquals((await api.call("GET", "/nowhere", bearer(tokens.admin))).status, 404);
      assertEquals((await api.call("PUT", "/tasks", bearer(tokens.admin))).status, 405);
    },
  );

  await t.step("a valid token works end to end: create with tasks:write, read with tasks:read", async () => {
    const created = await api.call("POST", "/tasks", bearer(tokens.only["tasks:write"]), {
      kind: "demo",
      input: { steps: 0 },
    });
    assertEquals(created.status, 201, created.text);
    const read = await api.call("GET", `/tasks/${created.body.task_id}`, bearer(tokens.only["tasks:read"]));
    assertEquals([read.status, read.body.task_id], [200, created.body.task_id]);
  });
}

Deno.test("access control: every route on memory", async (t) => {
  await suite(t, () => Promise.resolve(createMemoryStore()));
});

Deno.test(
  "access control: every route on Redis (real redis-server)",
  { ignore: missingTools("redis-server") },
  async (t) => {
    await using redis = await startRedis();
    await suite(t, () => openStore({ url: redis.url, prefix: `auth-${crypto.randomUUID()}:` }));
  },
);

Deno.test("running open (no tokens), every route answers without a token, as before", async () => {
  await using t = testApp();
  for (const [method, pattern] of ROUTE_SCOPES) {
    if (pattern.endsWith("/stream")) continue; // a stream that opens stays open: the stream tests cover these
    const res = await t.app.request(concrete(pattern), {
      method,
      ...(method === "POST" && { headers: { "content-type": "application/json" }, body: "{}" }),
    });
    await res.body?.cancel();
    assert(![401, 403].includes(res.status), `${method} ${pattern}: ${res.status}`);
  }
});

Deno.test("a route added outside the OpenAPI registry (no scope to read) needs admin: closed, not open", async () => {
  const tokens = testTokens();
  await using api = authApp(createMemoryStore(), tokens);
  api.app.get("/added-later", (c) => c.text("here"));
  const as = (token?: string) =>
    api.call("GET", "/added-later", token ? { authorization: `Bearer ${token}` } : {}).then((r) => r.status);
  assertEquals([await as(), await as(tokens.allBut.admin), await as(tokens.admin)], [401, 403, 200]);
});

Deno.test("callerOf() gives routes the token's principal; undefined when running open", async () => {
  const tokens = testTokens();
  await using api = authApp(createMemoryStore(), tokens);
  api.app.get("/whoami", (c) => c.json(callerOf(c) ?? null));
  // Not in the OpenAPI registry: it needs admin (above), which the admin token has.
  const seen = await api.call("GET", "/whoami", { authorization: `Bearer ${tokens.admin}` });
  assertEquals(seen.body, { name: "admin", tenant: "acme", scopes: ["admin"] });
  const open = testApp().app;
  open.get("/whoami", (c) => c.json(callerOf(c) ?? null));
  assertEquals(await (await open.request("/whoami")).json(), null);
});
