import { assertEquals, assertMatch } from "../testing/assert.ts";
import { createEmulator, DEFAULT_OPTIONS } from "./mod.ts";
import { parseFault } from "./faults.ts";

const AUTH = { "x-api-key": "demo-key", "x-api-secret-key": "demo-secret" };

Deno.test("faults: POST /__emulator/faults makes the next N matching requests fail, then clears", async () => {
  const { cloud } = createEmulator(DEFAULT_OPTIONS);
  const admin = await cloud.request("/__emulator/faults", {
    method: "POST",
    body: JSON.stringify({ kind: "status", status: 503, count: 2, retryAfter: 1, path: "/v1/subscriptions" }),
  });
  assertEquals(admin.status, 201);
  assertEquals((await cloud.request("/v1/regions", { headers: AUTH })).status, 200); // other paths untouched
  for (let i = 0; i < 2; i++) {
    const res = await cloud.request("/v1/subscriptions", { headers: AUTH });
    assertEquals([res.status, res.headers.get("retry-after")], [503, "1"]);
    assertEquals((await res.json()).error, "Service Unavailable");
  }
  assertEquals((await cloud.request("/v1/subscriptions", { headers: AUTH })).status, 200);
  assertEquals((await (await cloud.request("/__emulator/faults")).json()).faults, []);
});

Deno.test("faults: the x-emulator-fault header affects only its own request", async () => {
  const { enterprise } = createEmulator(DEFAULT_OPTIONS);
  const res = await enterprise.request("/v1/cluster", { headers: { "x-emulator-fault": "status=502" } });
  assertEquals([res.status, (await res.json()).error_code], [502, "internal_error"]);
  const bad = await enterprise.request("/v1/cluster", { headers: { "x-emulator-fault": "explode" } });
  assertEquals(bad.status, 400);
});

Deno.test("faults: drop sends the given bytes of the body but declares more, and closes the connection", async () => {
  const { cloud } = createEmulator(DEFAULT_OPTIONS);
  const res = await cloud.request("/v1/subscriptions", { headers: { ...AUTH, "x-emulator-fault": "drop=10" } });
  assertEquals([res.status, res.headers.get("content-length"), res.headers.get("connection")], [200, "11", "close"]);
  assertEquals((await res.bytes()).length, 10); // a real client sees the connection end one byte short
});

Deno.test("faults: stall delays the answer, and a client that gives up ends it", async () => {
  const { cloud } = createEmulator(DEFAULT_OPTIONS);
  const started = performance.now();
  const res = await cloud.request("/v1/regions", { headers: { ...AUTH, "x-emulator-fault": "stall=150" } });
  assertEquals(res.status, 200);
  assertEquals(performance.now() - started >= 140, true);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 20);
  const aborted = performance.now();
  await Promise.resolve(
    cloud.request("/v1/regions", {
      headers: { ...AUTH, "x-emulator-fault": "stall=60000" },
      signal: controller.signal,
    }),
  ).catch(() => {});
  assertEquals(performance.now() - aborted < 5000, true);
});

Deno.test("parseFault() names what is wrong", () => {
  assertMatch(parseFault({ kind: "status", status: 200 }) as string, /from 400 to 599/);
  assertMatch(parseFault({ kind: "nope" }) as string, /"status", "drop" or "stall"/);
  assertEquals(parseFault({ kind: "drop" }), { kind: "drop", afterBytes: 16 });
});

Deno.test("faults: POST /__emulator/reset restores the fixture", async () => {
  const { enterprise } = createEmulator(DEFAULT_OPTIONS);
  const auth = { authorization: `Basic ${btoa("admin@example.com:demo-password")}` };
  await enterprise.request("/v1/bdbs/1", { method: "DELETE", headers: auth });
  assertEquals((await enterprise.request("/v1/bdbs/1", { headers: auth })).status, 404);
  assertEquals((await enterprise.request("/__emulator/reset", { method: "POST" })).status, 204);
  assertEquals((await enterprise.request("/v1/bdbs/1", { headers: auth })).status, 200);
});
