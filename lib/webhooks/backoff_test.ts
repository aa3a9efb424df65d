import { assert, assertEquals } from "../../testing/assert.ts";
import { giveUpAt, RETRY_WINDOW_MS, retryDelayMs, shouldRetry } from "./backoff.ts";

const HIGHEST = () => 0.999_999_999;
const LOWEST = () => 0;

Deno.test("retryDelayMs() is at most base × 2^(attempt − 1): 1 s, 2 s, 4 s, … with the random at its top", () => {
  assertEquals([1, 2, 3, 4, 5, 10].map((n) => retryDelayMs(n, HIGHEST)), [999, 1999, 3999, 7999, 15999, 511999]);
});

Deno.test("retryDelayMs() scales the whole range by the random number (full jitter), down to 0", () => {
  assertEquals(retryDelayMs(3, LOWEST), 0);
  assertEquals(retryDelayMs(3, () => 0.5), 2000);
  assertEquals(retryDelayMs(3, () => 0.25), 1000);
});

Deno.test("retryDelayMs() stops growing at the cap (1 hour), even for huge attempt numbers", () => {
  for (const attempt of [13, 20, 100, 10_000, Number.MAX_SAFE_INTEGER]) {
    assertEquals(retryDelayMs(attempt, HIGHEST), 3_599_999, `attempt ${attempt}`);
  }
  assertEquals(retryDelayMs(12, HIGHEST), 2_047_999, "the last doubling under the cap");
});

Deno.test("retryDelayMs() takes a base and a cap; attempt numbers below 1 count as 1", () => {
  assertEquals(retryDelayMs(4, HIGHEST, { baseMs: 100 }), 799);
  assertEquals(retryDelayMs(4, HIGHEST, { baseMs: 100, capMs: 500 }), 499);
  assertEquals(retryDelayMs(0, HIGHEST), 999);
  assertEquals(retryDelayMs(-3, HIGHEST), 999);
});

Deno.test("retryDelayMs() with Math.random stays within its bounds", () => {
  for (let attempt = 1; attempt <= 30; attempt++) {
    const delay = retryDelayMs(attempt);
    assert(Number.isInteger(delay) && delay >= 0 && delay < Math.min(3_600_000, 1000 * 2 ** (attempt - 1)), `${delay}`);
  }
});

Deno.test("deliveries are retried for 24 hours after their first attempt by default", () => {
  const first = Date.UTC(2026, 0, 1);
  assertEquals(RETRY_WINDOW_MS, 86_400_000);
  assertEquals(giveUpAt(first), first + 86_400_000);
  assertEquals(giveUpAt(first, 60_000), first + 60_000);
  assertEquals(shouldRetry(first, first), true);
  assertEquals(shouldRetry(first, first + 86_399_999), true);
  assertEquals(shouldRetry(first, first + 86_400_000), false);
  assertEquals(shouldRetry(first, first + 61_000, 60_000), false);
});
