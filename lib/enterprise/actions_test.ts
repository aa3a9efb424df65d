import { assertEquals, assertRejects } from "../../testing/assert.ts";
import { StoreCtlError } from "../errors/mod.ts";
import { fetchTransport } from "../http/mod.ts";
import { actionProgress, waitForAction } from "./actions.ts";
import { createEnterpriseClient } from "./client.ts";

/** A client whose answers come from `answers`, one per request; it records the paths asked. */
function scripted(answers: (() => Response)[], seen: string[]) {
  return createEnterpriseClient(
    { url: "https://cluster.test:9443", username: "a", password: "b" },
    {
      transport: fetchTransport((input) => {
        seen.push(new URL(String(input)).pathname);
        return Promise.resolve(answers.shift()!());
      }),
      timeoutMs: 5000,
    },
  );
}

const action = (status: string, progress: string | number) => () =>
  Response.json({ action_uid: "a1", name: "remove_node", status, progress });

Deno.test("waitForAction() polls at its interval (a quarter of the time waited once longer) until the action completes", async () => {
  const seen: string[] = [];
  const client = scripted([
    action("queued", "0"),
    action("running", 40),
    action("running", "80"),
    action("completed", "100"),
  ], seen);
  let clock = 0;
  const pauses: number[] = [];
  const done = await waitForAction(client, { actionUid: "a1" }, {
    now: () => clock,
    sleep: (ms) => {
      pauses.push(ms);
      clock += ms;
      return Promise.resolve();
    },
    intervalMs: 1000,
  });
  assertEquals(done.status, "completed");
  assertEquals(seen, ["/v1/actions/a1", "/v1/actions/a1", "/v1/actions/a1", "/v1/actions/a1"]);
  assertEquals(pauses, [1000, 1000, 1000]);
});

Deno.test("waitForAction() fails with the action's error; a path is polled when there is no uid", async () => {
  const seen: string[] = [];
  const failed = () =>
    Response.json({ status: "failed", error_code: "insufficient_resources", error_message: "no room" });
  const client = scripted([failed], seen);
  const error = await assertRejects(() =>
    waitForAction(client, { path: "/v1/nodes/3/actions/remove" })
  ) as StoreCtlError;
  assertEquals([error.code, error.reason, error.message], [
    "api",
    "action_failed",
    "The action at /v1/nodes/3/actions/remove failed (insufficient_resources): no room",
  ]);
  assertEquals(seen, ["/v1/nodes/3/actions/remove"]);
});

Deno.test("waitForAction() gives up at its time limit with the last action seen", async () => {
  const client = scripted(Array.from({ length: 10 }, () => action("running", "10")), []);
  let clock = 0;
  const error = await assertRejects(
    () =>
      waitForAction(client, { actionUid: "a1" }, {
        timeoutMs: 3000,
        now: () => clock,
        sleep: (ms) => Promise.resolve(void (clock += ms)),
      }),
  ) as StoreCtlError;
  assertEquals([error.code, error.reason, (error.details.last as { progress: string }).progress], [
    "timeout",
    "action_timeout",
    "10",
  ]);
});

Deno.test("actionProgress() reads a string or a number", () => {
  assertEquals([actionProgress({ status: "x", progress: "45" }), actionProgress({ status: "x", progress: 45.5 })], [
    45,
    45.5,
  ]);
  assertEquals(actionProgress({ status: "x" }), undefined);
});
