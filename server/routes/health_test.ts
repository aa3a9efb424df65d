import { assertEquals } from "../../testing/assert.ts";
import { testTokens } from "../../testing/auth_tokens.ts";
import { testApp } from "../../testing/service.ts";
import { createMemoryStore, StoreUnavailableError } from "../../lib/store/mod.ts";
import { createTokenSet, parseTokens } from "../auth/tokens.ts";

Deno.test("/livez and /readyz: open; ready with each check; not ready while draining, naming why", async () => {
  const tokens = createTokenSet(parseTokens(testTokens().file, "test"));
  await using served = testApp({ tokens });
  const { app, service } = served;
  service.start();
  assertEquals(await (await app.request("/livez")).json(), { status: "live" });
  const ready = await app.request("/readyz");
  assertEquals(ready.status, 200);
  assertEquals(await ready.json(), {
    status: "ready",
    checks: { store: { ok: true, kind: "memory" }, runner: { ok: true, scopes: 2 }, draining: { ok: true } },
  });
  service.drain();
  const draining = await app.request("/readyz");
  assertEquals(draining.status, 503);
  const body = await draining.json();
  assertEquals([body.status, body.checks.draining.ok, body.checks.store.ok], ["not ready", false, true]);
  assertEquals((await app.request("/livez")).status, 200, "a draining process is alive");
});

Deno.test("/readyz: a store that does not answer is 503 naming it; with tokens the cause is not shown", async () => {
  const memory = createMemoryStore();
  const down = () => Promise.reject(new StoreUnavailableError("Redis at 10.0.0.7:6379 is not reachable"));
  for (const tokens of [undefined, createTokenSet(parseTokens(testTokens().file, "test"))]) {
    await using served = testApp({ store: { ...memory, ping: down, close: () => Promise.resolve() }, tokens });
    const res = await served.app.request("/readyz");
    assertEquals(res.status, 503);
    const { checks } = await res.json();
    assertEquals(checks.store.ok, false);
    assertEquals(checks.store.cause.includes("10.0.0.7"), tokens === undefined, checks.store.cause);
  }
  await memory.close();
});
