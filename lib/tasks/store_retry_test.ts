import { assert, assertEquals, assertRejects } from "../../testing/assert.ts";
import { storeOutage, StoreUnavailableError } from "../store/mod.ts";
import { isTransientStoreError, storeRetry, storeRetryDelay } from "./store_retry.ts";

const unavailable = (message: string) => new StoreUnavailableError(`Redis at 127.0.0.1:6379 ${message}`);

Deno.test("isTransientStoreError() is true for outages and passing replies, false for other refusals and bugs", () => {
  assert(isTransientStoreError(unavailable("did not answer within 1000 ms; reconnecting")));
  assert(isTransientStoreError(unavailable("is not reachable (connection refused); retrying")));
  assert(isTransientStoreError(unavailable("refused the command: LOADING Redis is loading the dataset in memory")));
  assert(
    isTransientStoreError(unavailable("refused the command: READONLY You can't write against a read only replica.")),
  );
  assert(!isTransientStoreError(unavailable("refused the command: ERR Error running script (call to f_1): oops")));
  assert(!isTransientStoreError(unavailable("refused the command: OOM command not allowed")));
  assert(!isTransientStoreError(new Error("did not answer")));
});

Deno.test("storeRetryDelay() doubles from 50 ms to at most 1 s, jittered between half and all of the step", () => {
  const policy = { budgetMs: 10_000 };
  assertEquals([0, 1, 2, 5, 10].map((a) => storeRetryDelay(a, policy, () => 0)), [25, 50, 100, 500, 500]);
  assertEquals([0, 1, 2, 5, 10].map((a) => storeRetryDelay(a, policy, () => 1)), [50, 100, 200, 1000, 1000]);
});

Deno.test("storeRetry() repeats transient failures within its budget, logs the outage twice, throws the rest", async () => {
  const lines: string[] = [];
  const retry = storeRetry({ budgetMs: 200, baseDelayMs: 5, maxDelayMs: 20 }, storeOutage((l) => lines.push(l)));
  let calls = 0;
  assertEquals(
    await retry(() => ++calls < 4 ? Promise.reject(unavailable("did not answer")) : Promise.resolve("ok")),
    "ok",
  );
  assertEquals(calls, 4);
  assertEquals(lines.length, 2, lines.join("\n"));
  assertEquals(lines[0], "store unreachable task runner: Redis at 127.0.0.1:6379 did not answer");
  calls = 0;
  await assertRejects(() => retry(() => (calls++, Promise.reject(new Error("bug")))), /bug/);
  assertEquals(calls, 1, "not a store outage: not repeated");
  const started = Date.now();
  await assertRejects(() => retry(() => Promise.reject(unavailable("is not reachable"))), /not reachable/);
  assert(Date.now() - started < 400, "gives up when the budget is spent");
  const stopped = new AbortController();
  stopped.abort();
  calls = 0;
  await assertRejects(() => retry(() => (calls++, Promise.reject(unavailable("x"))), stopped.signal));
  assertEquals(calls, 1, "an aborted caller is not kept waiting");
});
