/**
 * End-to-end scenarios of `ctl cloud …` with `--wait`, run on Deno and on the Node bundle by
 * `ctl_deno_test.ts` and `ctl_node_test.ts`. Each starts its own emulator, whose tasks take
 * long enough for a wait to time out.
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { startEmulator } from "../testing/emulator_process.ts";
import type { World } from "./ctl_scenarios.ts";
import { createWaitingArgv } from "../testing/ctl_process.ts";

const KEYS = { "x-api-key": "demo-key", "x-api-secret-key": "demo-secret" };

async function slowEmulator(taskDelayMs: number) {
  const emulator = await startEmulator(["--real-api", "--task-delay-ms", String(taskDelayMs)]);
  const env = {
    STORE_CLOUD_API_URL: emulator.cloudUrl,
    STORE_CLOUD_API_KEY: "demo-key",
    STORE_CLOUD_API_SECRET: "demo-secret",
  };
  const body = await (await fetch(`${emulator.cloudUrl}/subscriptions`, { headers: KEYS })).json();
  return {
    emulator,
    env,
    sub: String(body.subscriptions[0].id),
    [Symbol.asyncDispose]: () => emulator[Symbol.asyncDispose](),
  };
}

const create = (sub: string, name: string, gb: number, ...more: string[]) =>
  createWaitingArgv(sub, name, gb, "--wait-interval", "0.2", ...more);

/** Named scenarios of the cloud human commands. */
export const CLOUD_SCENARIOS: Record<string, (w: World) => Promise<void>> = {
  async "cloud database create --wait: completes, ends in processing-error, or times out naming the task"({ ctl }) {
    await using slow = await slowEmulator(1500);
    const { env, sub } = slow;
    const made = await ctl(create(sub, "orders-cache", 1, "-o", "json"), { env });
    assertEquals(made.code, 0, made.stderr);
    const db = JSON.parse(made.stdout);
    assertEquals([db.name, db.datasetSizeInGb, db.status, made.stderr], ["orders-cache", 1, "active", ""]);

    const failed = await ctl(create(sub, "too-big", 500), { env });
    assertEquals([failed.code, failed.stdout], [8, ""], failed.stderr);
    assertMatch(
      failed.stderr,
      /^Error: Task \S+ failed: A size of 500 GB is above the subscription's per-database quota/,
    );

    const late = await ctl(create(sub, "late", 1, "--wait-timeout", "1"), { env });
    assertEquals([late.code, late.stdout], [11, ""], late.stderr);
    const taskId = /^Error: Task (\S+) did not finish within 1 s/.exec(late.stderr)?.[1];
    assertMatch(late.stderr, new RegExp(`tip: The task goes on; keep waiting with: ctl cloud task wait ${taskId}\n$`));
    const resumed = await ctl(["cloud", "task", "wait", taskId!, "--wait-interval", "0.2", "-q", "status", "--raw"], {
      env,
    });
    assertEquals([resumed.code, resumed.stdout], [0, "processing-completed\n"], resumed.stderr);
    // An id of another shape fails at once, naming the shape; nothing is asked.
    const started = Date.now();
    const typo = await ctl(["cloud", "task", "wait", "orders-cache"], { env });
    assertEquals(typo.code, 2, typo.stderr);
    assertMatch(typo.stderr, /^Error: <taskId> must be a task id, a UUID such as [0-9a-f-]{36}; got 'orders-cache'\n/);
    assert(Date.now() - started < 5_000, "at once");
  },

  async "cloud database create --wait: 429 answers while polling are waited out (Retry-After)"({ ctl }) {
    await using slow = await slowEmulator(500);
    const { emulator, env, sub } = slow;
    const admin = `${emulator.cloudUrl.replace(/\/v1$/, "")}/__emulator/faults`;
    const queued = await fetch(admin, {
      method: "POST",
      body: JSON.stringify({ kind: "status", status: 429, retryAfter: 1, count: 2, path: "/v1/tasks/" }),
    });
    assertEquals(queued.status, 201);
    const started = Date.now();
    const made = await ctl(create(sub, "patient", 1, "-q", "name", "--raw"), { env });
    assertEquals([made.code, made.stdout], [0, "patient\n"], made.stderr);
    assertMatch(made.stderr, /^Retrying GET \S+\/tasks\/\S+ in 1 s: HTTP 429 \(retry 1 of 3\)\n/);
    assertEquals(Date.now() - started >= 2000, true, "both Retry-After pauses were honoured");
  },

  async "cloud database create --wait: Ctrl+C exits 130, saying the task goes on and how to follow it"({ spawn }) {
    await using slow = await slowEmulator(60_000);
    const { emulator, env, sub } = slow;
    const child = spawn(create(sub, "interrupted", 1), { env });
    const tasks = async () => await (await fetch(`${emulator.cloudUrl}/tasks`, { headers: KEYS })).json();
    for (let i = 0; i < 400 && (await tasks()).length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    await new Promise((r) => setTimeout(r, 300));
    child.kill("SIGINT");
    const out = await child.output();
    const stderr = new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 130, stderr);
    assertMatch(
      stderr,
      /Interrupted \(SIGINT\): task (\S+) goes on in the cloud; follow it with: ctl cloud task wait \1\n$/,
    );
  },

  async "cloud lists and deletes: table columns, ids checked, no --yes without a terminal"({ ctl }) {
    await using slow = await slowEmulator(200);
    const { env, sub } = slow;
    const list = await ctl(["cloud", "database", "list", "--subscription", sub, "-o", "table"], { env });
    assertEquals(list.code, 0, list.stderr);
    assertMatch(
      list.stdout.split("\n")[1],
      /^│ ID +│ NAME +│ STATUS +│ SIZE \(GB\) +│ VERSION │ REGION +│ ENDPOINT +│$/,
    );
    const bad = await ctl(["cloud", "database", "get", "--subscription", "x", "--database-id", "1"], { env });
    assertEquals(bad.code, 2);
    const unconfirmed = await ctl(["cloud", "database", "delete", "--subscription", sub, "--database-id", "51"], {
      env,
    });
    assertEquals(unconfirmed.code, 2);
    assertMatch(unconfirmed.stderr, /confirm with --yes \(there is no terminal to ask on\)/);
    const deleted = await ctl([
      "cloud",
      "database",
      "delete",
      "--subscription",
      sub,
      "--database-id",
      "51",
      "--yes",
      "--wait",
      "--wait-interval",
      "0.1",
      "-q",
      "status",
      "--raw",
    ], { env });
    assertEquals([deleted.code, deleted.stdout], [0, "processing-completed\n"], deleted.stderr);
  },
};
