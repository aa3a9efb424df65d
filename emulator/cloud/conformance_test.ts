/**
 * Holds the emulator's cloud side to the real API: every response `ctl` reads, in each state it
 * can be in (tasks received to completed or failed, networking reads through tasks), against
 * the shapes derived from the official OpenAPI description (conformance/cloud_schemas.json).
 */
import { assert, assertEquals } from "../../testing/assert.ts";
import schemas from "../conformance/cloud_schemas.json" with { type: "json" };
import { type Shape, shapeProblems } from "../conformance/shape.ts";
import { createEmulator, DEFAULT_OPTIONS } from "../mod.ts";
import { ALL_QUIRKS } from "../quirks.ts";

const AUTH = { "x-api-key": "demo-key", "x-api-secret-key": "demo-secret", "content-type": "application/json" };
const operations = schemas.operations as Record<string, { status: number[]; body: Shape }>;

Deno.test("cloud conformance: every response ctl reads has the real API's status and shape", async () => {
  const clock = { ms: Date.UTC(2026, 5, 1) };
  const emulator = createEmulator({ ...DEFAULT_OPTIONS, quirks: ALL_QUIRKS, now: () => clock.ms });
  const seen = new Set<string>();
  const problems: string[] = [];
  /** Calls the emulator and checks the answer against `operation`. */
  const call = async (operation: string, path: string, body?: unknown) => {
    const method = operation.split(" ")[0];
    const res = await emulator.cloud.request(`http://emulator.test/v1${path}`, {
      method,
      headers: AUTH,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    const spec = operations[operation];
    assert(spec, `${operation} has no schema`);
    seen.add(operation);
    if (!spec.status.includes(res.status)) problems.push(`${method} ${path}: status ${res.status}, not ${spec.status}`);
    for (const problem of shapeProblems(json, spec.body, schemas.enums)) problems.push(`${method} ${path}: ${problem}`);
    return json;
  };
  /** Reads a task until it is visible (the task-404 quirk), checking each answer that is not a 404. */
  const task = async (taskId: string) => {
    for (let i = 0; i < 10; i++) {
      const res = await emulator.cloud.request(`http://emulator.test/v1/tasks/${taskId}`, { headers: AUTH });
      if (res.status === 404) {
        await res.body?.cancel();
        continue;
      }
      await res.body?.cancel();
      return await call("GET /tasks/{taskId}", `/tasks/${taskId}`);
    }
    throw new Error(`task ${taskId} never became visible`);
  };
  const settle = () => (clock.ms += DEFAULT_OPTIONS.taskDelayMs);

  await call("GET /", "/");
  await call("GET /payment-methods", "/payment-methods");
  await call("GET /regions", "/regions");
  await call("GET /acl/users", "/acl/users");
  await call("GET /acl/roles", "/acl/roles");
  await call("GET /acl/redisRules", "/acl/redisRules");
  const { subscriptions } = await call("GET /subscriptions", "/subscriptions");
  const sub = subscriptions[0].id;
  await call("GET /subscriptions/{subscriptionId}", `/subscriptions/${sub}`);
  const { subscription } = await call(
    "GET /subscriptions/{subscriptionId}/databases",
    `/subscriptions/${sub}/databases`,
  );
  for (const db of subscription[0].databases) {
    await call(
      "GET /subscriptions/{subscriptionId}/databases/{databaseId}",
      `/subscriptions/${sub}/databases/${db.databaseId}`,
    );
  }

  // Each state of a task: received (the answer to the create), initialized, in progress, completed.
  const created = await call("POST /subscriptions/{subscriptionId}/databases", `/subscriptions/${sub}/databases`, {
    name: "conformance",
    datasetSizeInGb: 1,
  });
  const states = [(await task(created.taskId)).status];
  for (const step of [0.3, 0.3, 0.5]) {
    clock.ms += DEFAULT_OPTIONS.taskDelayMs * step;
    states.push((await task(created.taskId)).status);
  }
  assertEquals(states, ["received", "initialized", "processing-in-progress", "processing-completed"]);
  const made = (await task(created.taskId)).response.resourceId;
  await call("PUT /subscriptions/{subscriptionId}/databases/{databaseId}", `/subscriptions/${sub}/databases/${made}`, {
    datasetSizeInGb: 2,
  });
  const removed = await call(
    "DELETE /subscriptions/{subscriptionId}/databases/{databaseId}",
    `/subscriptions/${sub}/databases/${made}`,
  );
  // A failed task, with the real API's error object.
  const tooBig = await call("POST /subscriptions/{subscriptionId}/databases", `/subscriptions/${sub}/databases`, {
    name: "too-big",
    datasetSizeInGb: 500,
  });
  const newSub = await call("POST /subscriptions", "/subscriptions", { name: "conformance" });
  const renamed = await call("PUT /subscriptions/{subscriptionId}", `/subscriptions/${sub}`, { name: "renamed" });
  const inUse = await call("DELETE /subscriptions/{subscriptionId}", `/subscriptions/${sub}`);
  settle();
  for (const id of [removed.taskId, newSub.taskId, renamed.taskId]) {
    assertEquals((await task(id)).status, "processing-completed");
  }
  for (const id of [tooBig.taskId, inUse.taskId]) assertEquals((await task(id)).status, "processing-error");
  await call("GET /tasks", "/tasks");

  // Networking reads answer a task whose response holds the resource.
  for (const path of ["peerings", "private-service-connect", "transitGateways"]) {
    const started = await call(`GET /subscriptions/{subscriptionId}/${path}`, `/subscriptions/${sub}/${path}`);
    settle();
    assertEquals(typeof (await task(started.taskId)).response.resource, "object");
  }

  assertEquals(problems, []);
  assertEquals([...seen].sort(), Object.keys(operations).sort(), "every operation ctl uses was checked");
});
