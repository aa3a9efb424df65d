import { assert, assertEquals } from "../../testing/assert.ts";
import { SlidingWindowLog } from "./sliding_window.ts";

Deno.test("SlidingWindowLog: with a new caller every 10 ms, it tracks at most 1.5 × the callers of one window", () => {
  const clock = { ms: 0 };
  const log = new SlidingWindowLog(() => clock.ms);
  let most = 0;
  for (let i = 0; i < 2_000; i++, clock.ms += 10) { // 20 windows of 1 s, 100 callers each
    log.hit(`caller-${i}`, 10, 1_000);
    most = Math.max(most, log.size);
  }
  assert(most <= 150, `tracked ${most} callers at once; one window holds 100`);
});

Deno.test("SlidingWindowLog: after a quiet window, the next hit leaves only its own caller, without a pause", () => {
  const clock = { ms: 0 };
  const log = new SlidingWindowLog(() => clock.ms);
  for (let i = 0; i < 200_000; i++) log.hit(`caller-${i}`, 10, 30_000);
  assertEquals(log.size, 200_000);
  clock.ms += 30_000;
  const started = performance.now();
  assertEquals(log.hit("late", 10, 30_000).allowed, true);
  const ms = performance.now() - started;
  assertEquals(log.size, 1);
  assert(ms < 20, `the hit after the window took ${ms.toFixed(1)} ms (200,000 stale callers)`);
});

Deno.test("SlidingWindowLog: callers still in their window survive the sweep and keep their counts", () => {
  const clock = { ms: 0 };
  const log = new SlidingWindowLog(() => clock.ms);
  for (let i = 0; i < 3; i++) log.hit("steady", 3, 1_000);
  for (let i = 0; i < 1_000; i++, clock.ms += 1) log.hit(`passer-${i}`, 3, 1_000);
  // 1 s after "steady"'s hits: they leave the window exactly now; until then it stays limited.
  clock.ms = 999;
  assertEquals(log.hit("steady", 3, 1_000).allowed, false);
  clock.ms = 1_000;
  assertEquals(log.hit("steady", 3, 1_000).count, 1);
});

Deno.test("SlidingWindowLog: after a burst, a trickle of requests frees the burst's callers as they leave the window", () => {
  const clock = { ms: 0 };
  const log = new SlidingWindowLog(() => clock.ms);
  for (let i = 0; i < 50_000; i++, clock.ms += 0.02) log.hit(`burst-${i}`, 10, 30_000); // 50,000 callers in 1 s
  clock.ms = 30_000;
  for (let i = 0; i < 30; i++, clock.ms += 100) log.hit("steady", 10, 30_000); // 10 per second for 3 s
  assertEquals(log.size, 1, "only the steady caller is left");
  assertEquals(log.hit("steady", 10, 30_000).allowed, false, "its own count survived");
});
