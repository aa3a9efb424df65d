import { assert, assertEquals, assertRejects } from "../../testing/assert.ts";
import { StoreCtlError } from "../errors/mod.ts";
import type { CloudClient } from "./client.ts";
import { pollInterval } from "../http/mod.ts";
import { type CloudTask, readThroughTask, waitForTask } from "./tasks.ts";

/** A client whose task moves through `statuses`, one per poll, on a fake clock. */
function scripted(statuses: string[]) {
  let clock = 0;
  const sleeps: number[] = [];
  const client = {
    get: () => Promise.resolve({ taskId: "t1", status: statuses.shift() ?? "processing-in-progress" } as CloudTask),
  } as unknown as CloudClient;
  const options = {
    now: () => clock,
    sleep: (ms: number) => {
      sleeps.push(ms);
      clock += ms;
      return Promise.resolve();
    },
  };
  return { client, options, sleeps };
}

Deno.test("waitForTask() pauses the larger of the interval and a quarter of the wait, capped", async () => {
  const { client, options, sleeps } = scripted([...Array(12).fill("processing-in-progress"), "processing-completed"]);
  const task = await waitForTask(client, "t1", { ...options, intervalMs: 1000, maxIntervalMs: 3000 });
  assertEquals(task.status, "processing-completed");
  assertEquals(sleeps.map(Math.round), [1000, 1000, 1000, 1000, 1000, 1250, 1563, 1953, 2441, 3000, 3000, 3000]);
  assertEquals([pollInterval(0, 5000, 3000), pollInterval(100_000, 500, 3000)], [5000, 3000]);
});

Deno.test("waitForTask() notices a short task within one interval, a long one at most a quarter late", async () => {
  for (const durationMs of [300, 3000, 10_000, 60_000, 900_000]) {
    let clock = 0;
    const client = {
      get: () => Promise.resolve({ taskId: "t1", status: clock >= durationMs ? "processing-completed" : "received" }),
    } as unknown as CloudClient;
    await waitForTask(client, "t1", {
      now: () => clock,
      sleep: (ms) => Promise.resolve(void (clock += ms)),
      timeoutMs: 3_600_000,
    });
    const late = clock - durationMs;
    assert(late <= Math.max(1000, Math.min(durationMs / 4, 5000)), `${durationMs} ms task noticed ${late} ms late`);
  }
});

Deno.test("waitForTask() polls on through a 429 or 503 that outlasted the client's retries", async () => {
  const { client, options } = scripted([]);
  const answers: (CloudTask | StoreCtlError)[] = [
    new StoreCtlError("rate_limited", "Rate limited", { status: 429 }),
    new StoreCtlError("api", "HTTP 503", { status: 503 }),
    { taskId: "t1", status: "processing-completed" },
  ];
  const passing: string[] = [];
  client.get = () => {
    const next = answers.shift()!;
    return (next instanceof Error ? Promise.reject(next) : Promise.resolve(next)) as never;
  };
  const task = await waitForTask(client, "t1", { ...options, onPollError: (e) => passing.push(e.code) });
  assertEquals([task.status, passing], ["processing-completed", ["rate_limited", "api"]]);
});

Deno.test("waitForTask() waits out the 404s of a task created a moment ago, then fails clearly", async () => {
  const notFound = () => Promise.reject(new StoreCtlError("not_found", "Not found: GET /tasks/t1", { status: 404 }));
  const late = scripted([]);
  let reads = 0;
  late.client.get = () =>
    (++reads <= 5 ? notFound() : Promise.resolve({ taskId: "t1", status: "processing-completed" })) as never;
  const seen: string[] = [];
  const task = await waitForTask(late.client, "t1", { ...late.options, onProgress: (t) => seen.push(t.status) });
  assertEquals([task.status, reads], ["processing-completed", 6]);

  const never = scripted([]);
  let calls = 0;
  never.client.get = () => (calls++, notFound()) as never;
  const missing = await assertRejects(() =>
    waitForTask(never.client, "t1", { ...never.options, accepted: true })
  ) as StoreCtlError;
  assertEquals([missing.code, missing.reason], ["not_found", "task_not_found"]);
  assertEquals(missing.message, "Task t1 was not found: the API answered 404 for 10 s after it was accepted");
  assert(calls >= 5, `it asked ${calls} times`);
  const waited = never.sleeps.reduce((a, b) => a + b, 0);
  assert(waited >= 10_000 && waited < 15_000, `it waited ${waited} ms`);
});

Deno.test("readThroughTask() returns a body as it is, or waits for the task it names and returns its resource", async () => {
  const direct = { get: () => Promise.resolve({ peerings: [1] }) } as unknown as CloudClient;
  assertEquals(await readThroughTask(direct, "/subscriptions/1/peerings"), { peerings: [1] });
  const waited: string[] = [];
  const tasked = {
    get: () => Promise.resolve({ taskId: "t9", commandType: "peeringListRequest", status: "received" }),
  } as unknown as CloudClient;
  const resource = await readThroughTask(tasked, "/subscriptions/1/peerings", (id) => {
    waited.push(id);
    return Promise.resolve({ taskId: id, status: "processing-completed", response: { resource: { peerings: [2] } } });
  });
  assertEquals([resource, waited], [{ peerings: [2] }, ["t9"]]);
});

Deno.test("waitForTask() reports failure with the task's description, and a timeout with the task id", async () => {
  const failing = scripted(["processing-error"]);
  failing.client.get = () =>
    Promise.resolve({
      taskId: "t1",
      status: "processing-error",
      response: { error: { description: "Quota exceeded" } },
    }) as never;
  const failed = await assertRejects(() => waitForTask(failing.client, "t1", failing.options)) as StoreCtlError;
  assertEquals([failed.code, failed.message, failed.reason], ["api", "Task t1 failed: Quota exceeded", "task_failed"]);
  const slow = scripted([]);
  const late = await assertRejects(() =>
    waitForTask(slow.client, "t1", { ...slow.options, timeoutMs: 5000 })
  ) as StoreCtlError;
  assertEquals([late.code, late.reason, late.details.taskId], ["timeout", "task_timeout", "t1"]);
  assertEquals(slow.sleeps.reduce((a, b) => a + b, 0), 5000, "it waits no longer than the limit");
});

Deno.test("waitForTask() stops at once when its signal aborts, with the signal's reason", async () => {
  const { client } = scripted([]);
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error("stop")), 20);
  const error = await assertRejects(() => waitForTask(client, "t1", { signal: controller.signal, intervalMs: 10_000 }));
  assertEquals(error.message, "stop");
});

Deno.test("waitForTask() ends at its limit even while a poll hangs", async () => {
  const client = {
    get: (_path: string, options: { signal: AbortSignal }) =>
      new Promise((_, reject) => options.signal.addEventListener("abort", () => reject(options.signal.reason))),
  } as unknown as CloudClient;
  const started = Date.now();
  const error = await assertRejects(() => waitForTask(client, "t1", { timeoutMs: 200 })) as StoreCtlError;
  assertEquals([error.code, error.reason, error.message], [
    "timeout",
    "task_timeout",
    "Task t1 did not finish within 0 s (last status: not yet seen)",
  ]);
  assert(Date.now() - started < 2000, "it did not wait for the poll");
});

Deno.test("waitForTask() of a task the caller did not see accepted says only that it was not found", async () => {
  const never = scripted([]);
  never.client.get = () => Promise.reject(new StoreCtlError("not_found", "Not found", { status: 404 })) as never;
  const missing = await assertRejects(() => waitForTask(never.client, "t2", never.options)) as StoreCtlError;
  assertEquals([missing.reason, missing.message], [
    "task_not_found",
    "Task t2 was not found: the API answered 404 for 10 s",
  ]);
});
