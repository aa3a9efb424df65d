import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { createEmulator, DEFAULT_OPTIONS } from "./mod.ts";

Deno.test("createEmulator() logs an unexpected error as one line, with the stack only in debug", async () => {
  for (const debug of [false, true]) {
    const lines: string[] = [];
    const { cloud } = createEmulator({ ...DEFAULT_OPTIONS, debug, log: (line) => lines.push(line) });
    cloud.get("/boom", () => {
      throw new Error("kaboom");
    });
    const res = await cloud.request("/boom");
    assertEquals([res.status, (await res.json()).message], [500, "Internal emulator error; see the emulator's log"]);
    assertEquals(lines.length, 1);
    assertMatch(lines[0], /^emulator: GET \/boom failed: kaboom/);
    assertEquals(lines[0].includes("\n"), debug, lines[0]);
    if (debug) assert(lines[0].includes("mod_test.ts"), "the stack names where it was thrown");
  }
});

Deno.test("createEmulator(): bodies over bodyLimitBytes are 413 in each API's error format, declared or chunked", async () => {
  const emulator = createEmulator({ ...DEFAULT_OPTIONS, bodyLimitBytes: 1024 });
  const big = JSON.stringify({ name: "x".repeat(2048) });
  const bodies = () => [big, ReadableStream.from([new TextEncoder().encode(big)])]; // declared length, chunked
  for (const body of bodies()) {
    const res = await emulator.cloud.request("http://emulator.test/v1/subscriptions", {
      method: "POST",
      headers: { "x-api-key": "demo-key", "x-api-secret-key": "demo-secret", "content-type": "application/json" },
      body,
    });
    const error = await res.json();
    assertEquals([res.status, error.status, error.error, error.path], [
      413,
      413,
      "Payload Too Large",
      "/v1/subscriptions",
    ]);
    assertEquals(error.message, "The request body is over 1024 bytes; send a smaller one");
  }
  for (const body of bodies()) {
    const res = await emulator.enterprise.request("http://emulator.test/v1/bdbs", {
      method: "POST",
      headers: {
        authorization: `Basic ${btoa("admin@example.com:demo-password")}`,
        "content-type": "application/json",
      },
      body,
    });
    assertEquals([res.status, await res.json()], [413, {
      error_code: "payload_too_large",
      message: "The request body is over 1024 bytes; send a smaller one",
    }]);
  }
  const fits = await emulator.enterprise.request("http://emulator.test/v1/bdbs", {
    method: "POST",
    headers: { authorization: `Basic ${btoa("admin@example.com:demo-password")}` },
    body: JSON.stringify({ name: "small", memory_size: 1024 }),
  });
  assertEquals(fits.status, 200);
});

Deno.test("createEmulator(): the default body limit is 1 MiB", async () => {
  assertEquals(DEFAULT_OPTIONS.bodyLimitBytes, 1024 * 1024);
  const { cloud } = createEmulator(DEFAULT_OPTIONS);
  const res = await cloud.request("http://emulator.test/v1/subscriptions", {
    method: "POST",
    headers: { "x-api-key": "demo-key", "x-api-secret-key": "demo-secret" },
    body: JSON.stringify({ name: "x".repeat(1024 * 1024) }),
  });
  assertEquals(res.status, 413);
});
