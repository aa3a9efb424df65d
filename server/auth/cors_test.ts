import { assertEquals } from "../../testing/assert.ts";
import { testTokens } from "../../testing/auth_tokens.ts";
import { testApp } from "../../testing/service.ts";
import { createTokenSet, parseTokens } from "./tokens.ts";

const preflight = (origin: string) => ({
  method: "OPTIONS",
  headers: {
    origin,
    "access-control-request-method": "POST",
    "access-control-request-headers": "authorization, content-type, idempotency-key",
  },
});

Deno.test("CORS is off by default: no Access-Control-* header, on a preflight or a request", async () => {
  const { app } = testApp();
  for (const res of [await app.request("/tasks", preflight("https://app.example.com")), await app.request("/health")]) {
    await res.body?.cancel();
    assertEquals([...res.headers.keys()].filter((k) => k.startsWith("access-control-")), []);
  }
});

Deno.test("CORS_ORIGINS: a named origin's preflight is answered without a token; others get no CORS headers", async () => {
  const tokens = testTokens();
  await using served = testApp({
    tokens: createTokenSet(parseTokens(tokens.file, "test")),
    env: { CORS_ORIGINS: "https://app.example.com,http://localhost:5173" },
  });
  const { app } = served;
  const ok = await app.request("/tasks", preflight("https://app.example.com"));
  assertEquals(ok.status, 204);
  assertEquals(ok.headers.get("access-control-allow-origin"), "https://app.example.com");
  assertEquals(ok.headers.get("access-control-allow-methods")?.includes("POST"), true);
  const allowed = ok.headers.get("access-control-allow-headers")?.toLowerCase() ?? "";
  for (const header of ["authorization", "content-type", "idempotency-key", "last-event-id"]) {
    assertEquals(allowed.includes(header), true, header);
  }

  const other = await app.request("/tasks", preflight("https://evil.example"));
  await other.body?.cancel();
  assertEquals(other.headers.get("access-control-allow-origin"), null);

  // A real request from the origin carries the header, its 401 too (so the page can read why).
  const denied = await app.request("/tasks", { headers: { origin: "http://localhost:5173" } });
  assertEquals(denied.status, 401);
  assertEquals(denied.headers.get("access-control-allow-origin"), "http://localhost:5173");
  assertEquals(denied.headers.get("access-control-expose-headers")?.toLowerCase().includes("www-authenticate"), true);
  await denied.body?.cancel();
  const read = await app.request("/tasks", {
    headers: { origin: "http://localhost:5173", authorization: `Bearer ${tokens.admin}` },
  });
  assertEquals([read.status, read.headers.get("access-control-allow-origin")], [200, "http://localhost:5173"]);
  await read.body?.cancel();
});
