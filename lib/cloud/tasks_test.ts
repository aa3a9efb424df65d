import { assertEquals, assertRejects } from "../../tests/assert.ts";
import type { StoreCtlError } from "../errors/mod.ts";
import type { CloudClient } from "./client.ts";
import { type CloudTask, waitForTask } from "./tasks.ts";

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

Deno.test("waitForTask() polls with growing pauses, capped so a short task is noticed soon", async () => {
  const { client, options, sleeps } = scripted([
    "received",
    "processing-in-progress",
    "x",
    "x",
    "x",
    "x",
    "processing-completed",
  ]);
  const task = await waitForTask(client, "t1", { ...options, intervalMs: 1000, maxIntervalMs: 3000 });
  assertEquals(task.status, "processing-completed");
  assertEquals(sleeps, [1000, 1500, 2250, 3000, 3000, 3000]);
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
