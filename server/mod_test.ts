import { assertEquals } from "../tests/assert.ts";
import { createMemoryStore, type Store } from "../lib/store/mod.ts";
import { createApp } from "./mod.ts";

Deno.test("GET /health reports the store and 200 when it answers", async () => {
  const res = await createApp({ store: createMemoryStore() }).request("/health");
  assertEquals([res.status, await res.json()], [200, { status: "healthy", store: "memory" }]);
});

Deno.test("GET /health is 503 unhealthy with the cause when the store does not answer", async () => {
  const down: Store = {
    kind: "redis",
    ping: () => Promise.reject(new Error("connect ECONNREFUSED")),
    close: () => Promise.resolve(),
  };
  const res = await createApp({ store: down }).request("/health");
  assertEquals([res.status, await res.json()], [503, {
    status: "unhealthy",
    store: "redis",
    cause: "connect ECONNREFUSED",
  }]);
});
