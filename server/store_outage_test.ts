import { assertEquals, assertMatch } from "../testing/assert.ts";
import { createMemoryStore, type Store, StoreUnavailableError } from "../lib/store/mod.ts";
import { testApp } from "../testing/service.ts";

const PATH = "/api/RateLimited/sliding";

/** A memory store that can be switched off. */
function switchable(): Store & { down: boolean } {
  const memory = createMemoryStore();
  const failure = () =>
    Promise.reject(
      new StoreUnavailableError("Redis at 127.0.0.1:6390 is not reachable (connection refused); retrying"),
    );
  const store = {
    ...memory,
    kind: "redis" as const,
    down: false,
    ping: () => store.down ? failure() : memory.ping(),
    hitSlidingWindow: (key: string, limit: number, windowMs: number) =>
      store.down ? failure() : memory.hitSlidingWindow(key, limit, windowMs),
    close: () => memory.close(),
  };
  return store;
}

Deno.test("store outage: one log line when it starts and one when it ends, with the count of failed requests", async () => {
  const store = switchable();
  const lines: string[] = [];
  const clock = { ms: 1_000_000 };
  const { app } = testApp({ store, log: (line) => lines.push(line), now: () => clock.ms });
  const hit = async (who: string) =>
    (await app.request(PATH, { headers: { authorization: `Basic ${btoa(`${who}:x`)}` } })).status;
  assertEquals(await hit("a"), 200);
  store.down = true;
  const statuses = [];
  for (let i = 0; i < 300; i++) statuses.push(await hit(`u${i % 20}`));
  for (let i = 0; i < 5; i++) statuses.push((await app.request("/health")).status);
  assertEquals(statuses.filter((s) => s === 503).length, 305);
  assertEquals(lines.length, 1, lines.join("\n"));
  assertMatch(
    lines[0],
    /^store unreachable traceId=[0-9a-f]{32} path=\/api\/RateLimited\/sliding: Redis at 127\.0\.0\.1:6390 is not reachable \(connection refused\); retrying$/,
  );
  clock.ms += 8_250;
  store.down = false;
  assertEquals(await hit("b"), 200);
  assertEquals(await hit("c"), 200);
  assertEquals(lines.slice(1), ["store answers again after 8.3 s; 305 calls failed meanwhile"]);
  store.down = true; // a second outage is logged again
  assertEquals((await app.request("/health")).status, 503);
  store.down = false;
  assertEquals((await app.request("/health")).status, 200);
  assertEquals(lines.length, 4, lines.join("\n"));
  assertMatch(lines[2], /^store unreachable traceId=[0-9a-f]{32} path=\/health: /);
  assertEquals(lines[3], "store answers again after 0.0 s; 1 call failed meanwhile");
});
