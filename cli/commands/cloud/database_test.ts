import { assertEquals, assertMatch } from "../../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../testing/ctl_in_process.ts";
import { keyValues } from "../../../testing/table_text.ts";
import { createWaitingArgv as createWaiting } from "../../../testing/ctl_process.ts";
import { Interrupted } from "../../context.ts";

const env = EMULATOR_ENV;
const TTY = { env, tty: { stdout: true }, columns: 200 };
type Ctl = Awaited<ReturnType<typeof inProcessCtl>>;

async function firstSubscription(ctl: Ctl): Promise<string> {
  return (await ctl(["cloud", "subscription", "list", "-q", "[0].id", "--raw"], { env })).stdout.trim();
}

Deno.test("cloud database list and get: table columns for people, full objects as JSON, --limit caps", async () => {
  await using ctl = await inProcessCtl();
  const sub = await firstSubscription(ctl);
  const table = await ctl(["cloud", "database", "list", "--subscription", sub], TTY);
  assertEquals(table.code, 0, table.stderr);
  const lines = table.stdout.split("\n");
  assertMatch(lines[1], /^│ ID +│ NAME +│ STATUS +│ SIZE \(GB\) +│ VERSION │ REGION +│ ENDPOINT +│$/);
  assertMatch(
    lines[2],
    new RegExp(
      `^│ 51 +│ \\S+-51 +│ active +│ \\d+ \\(memory limit\\) │ 7\\.4 +│ (AWS|GCP) [a-z0-9-]+ +│ redis-\\d+\\.c${sub}\\.[a-z0-9-]+\\.example\\.net:\\d+ +│$`,
    ),
  );
  assertEquals(table.requests, [`GET /v1/subscriptions/${sub}/databases?offset=0&limit=100`]);
  const json = await ctl(["cloud", "database", "list", "--subscription", sub, "-o", "json"], { env });
  const all = JSON.parse(json.stdout);
  assertEquals([all.length > 1, typeof all[0].privateEndpoint], [true, "string"], "JSON keeps every field");
  const capped = await ctl(
    ["cloud", "database", "list", "--subscription", sub, "--limit", "1", "-q", "[].databaseId"],
    {
      env,
    },
  );
  assertEquals([JSON.parse(capped.stdout), capped.requests], [[51], [
    `GET /v1/subscriptions/${sub}/databases?offset=0&limit=1`,
  ]]);
  const one = await ctl(["cloud", "database", "get", "--subscription", sub, "--database-id", "51", "-o", "yaml"], {
    env,
  });
  assertMatch(one.stdout, /^databaseId: 51\nname: /);
  const row = await ctl(["cloud", "database", "get", "--subscription", sub, "--database-id", "51"], TTY);
  assertEquals(keyValues(row.stdout).ID, "51");
});

Deno.test("cloud database: ids are checked and required before any request; an unknown id is 404, exit 5, once", async () => {
  await using ctl = await inProcessCtl();
  for (
    const [argv, message] of [
      [
        ["list"],
        /^Error: --subscription is required\n {2}tip: Give --subscription <id>: .*ctl cloud subscription list/,
      ],
      [
        ["list", "--subscription", "abc"],
        /--subscription must be a subscription id \(a positive whole number\); got 'abc'/,
      ],
      [["get", "--subscription", "1"], /--database-id is required\n {2}tip: .*ctl cloud database list --subscription/],
      [["get", "--subscription", "1", "--database-id", "0"], /--database-id must be a database id .*got '0'/],
      [["list", "--subscription", "1", "--limit", "-3"], /--limit must be a whole number greater than 0/],
    ] as const
  ) {
    const r = await ctl(["cloud", "database", ...argv], { env });
    assertEquals([r.code, r.requests], [2, []], `${argv.join(" ")}: ${r.stderr}`);
    assertMatch(r.stderr, message);
  }
  const sub = await firstSubscription(ctl);
  const missing = await ctl(["cloud", "database", "get", "--subscription", sub, "--database-id", "9999"], { env });
  assertEquals([missing.code, missing.requests.length], [5, 1]);
  assertMatch(
    missing.stderr,
    /^Error: Not found: GET \/subscriptions\/\d+\/databases\/9999: Database 9999 in subscription/,
  );
  const gone = await ctl(["cloud", "database", "delete", "--subscription", sub, "--database-id", "9999", "--yes"], {
    env,
  });
  assertEquals([gone.code, gone.requests.length], [5, 1]);
});

Deno.test("cloud database create: --name and a size, or a -d body, flags winning; missing ones exit 2 unsent", async () => {
  await using ctl = await inProcessCtl();
  const sub = await firstSubscription(ctl);
  const noName = await ctl(["cloud", "database", "create", "--subscription", sub, "--memory-limit-gb", "1"], { env });
  assertEquals([noName.code, noName.requests], [2, []]);
  assertMatch(
    noName.stderr,
    /^Error: --name is required\n {2}tip: Give --name <name>, or a "name" field in the -d body/,
  );
  const noMemory = await ctl(["cloud", "database", "create", "--subscription", sub, "-d", '{"name":"a"}'], { env });
  assertEquals([noMemory.code, noMemory.requests], [2, []]);
  assertMatch(noMemory.stderr, /--dataset-size-gb is required/);
  const badBody = await ctl(["cloud", "database", "create", "--subscription", sub, "-d", "[1]"], { env });
  assertEquals([badBody.code, badBody.requests], [2, []]);
  assertMatch(badBody.stderr, /-d must be a JSON object; got an array/);
  const badMemory = await ctl(["cloud", "database", "create", "--subscription", sub, "--memory-limit-gb", "lots"], {
    env,
  });
  assertEquals([badMemory.code, badMemory.requests], [2, []]);

  await Deno.writeTextFile(
    `${ctl.dir}/db.json`,
    JSON.stringify({ name: "from-file", memoryLimitInGb: 1, dataEvictionPolicy: "allkeys-lru" }),
  );
  const made = await ctl([
    "cloud",
    "database",
    "create",
    "--subscription",
    sub,
    "-d",
    "@db.json",
    "--name",
    "from-flag",
    "--wait",
    "--wait-interval",
    "0.1",
    "-o",
    "json",
  ], { env });
  assertEquals(made.code, 0, made.stderr);
  const db = JSON.parse(made.stdout);
  assertEquals([db.name, db.memoryLimitInGb, db.dataEvictionPolicy], ["from-flag", 1, "allkeys-lru"]);
  assertEquals(made.requests.at(-1), `GET /v1/subscriptions/${sub}/databases/${db.databaseId}`);
  assertEquals(made.stderr, "", "nothing on stderr when it is not a terminal");
});

Deno.test("cloud database create without --wait: the task on stdout, the command that follows it on stderr", async () => {
  await using ctl = await inProcessCtl({ taskDelayMs: 60_000 });
  const sub = await firstSubscription(ctl);
  const r = await ctl(["cloud", "database", "create", "--subscription", sub, "--name", "n", "--memory-limit-gb", "1"], {
    env,
  });
  assertEquals(r.code, 0, r.stderr);
  const ref = JSON.parse(r.stdout);
  assertEquals([ref.status, r.requests.length], ["received", 1]);
  assertEquals(r.stderr, `Task ${ref.taskId} is received; wait for it with: ctl cloud task wait ${ref.taskId}\n`);
});

Deno.test("cloud database create --wait: a failed task exits 8 with its description; a slow one exits 11 naming the task", async () => {
  await using ctl = await inProcessCtl();
  const sub = await firstSubscription(ctl);
  const failed = await ctl(createWaiting(sub, "big", 500), { env });
  assertEquals(failed.code, 8);
  assertMatch(
    failed.stderr,
    /^Error: Task \S+ failed: A size of 500 GB is above the subscription's per-database quota/,
  );
  await using slow = await inProcessCtl({ taskDelayMs: 60_000 });
  const late = await slow(createWaiting(sub, "slow", 1, "--wait-timeout", "1", "--wait-interval", "0.2"), { env });
  assertEquals(late.code, 11);
  const taskId = /Task (\S+) did not finish within 1 s/.exec(late.stderr)?.[1];
  assertMatch(late.stderr, new RegExp(`tip: The task goes on; keep waiting with: ctl cloud task wait ${taskId}\n$`));
});

Deno.test("cloud database create --wait: Ctrl+C exits 130 saying the operation goes on and how to follow it", async () => {
  await using ctl = await inProcessCtl({ taskDelayMs: 60_000 });
  const sub = await firstSubscription(ctl);
  const interrupt = new AbortController();
  setTimeout(() => interrupt.abort(new Interrupted({ name: "SIGINT", number: 2 })), 300);
  const r = await ctl(createWaiting(sub, "n", 1, "--wait-interval", "0.1"), { env, interrupt: interrupt.signal });
  assertEquals([r.code, r.stdout], [130, ""]);
  assertMatch(
    r.stderr,
    /^Interrupted \(SIGINT\): task (\S+) goes on in the cloud; follow it with: ctl cloud task wait \1\n$/,
  );
});

Deno.test("cloud database create --wait: polling rides out 429s with Retry-After and 503s", async () => {
  await using ctl = await inProcessCtl({ taskDelayMs: 300 });
  const sub = await firstSubscription(ctl);
  ctl.emulator.faults.cloud.add({ kind: "status", status: 429, retryAfter: 0 }, 2, "/v1/tasks/");
  ctl.emulator.faults.cloud.add({ kind: "status", status: 503 }, 5, "/v1/tasks/");
  const r = await ctl(createWaiting(sub, "n", 1, "--wait-interval", "0.1", "-q", "name", "--raw"), { env });
  assertEquals([r.code, r.stdout], [0, "n\n"], r.stderr);
  assertMatch(r.stderr, /Retrying GET \S+\/tasks\/\S+ in \d+ ms: HTTP 429 \(retry 1 of 3\)/);
  assertEquals(r.requests.filter((q) => q.startsWith("GET /v1/tasks/")).length >= 8, true);
});

Deno.test("cloud database update and delete: flags over -d, confirmation, --wait prints the result", async () => {
  await using ctl = await inProcessCtl();
  const sub = await firstSubscription(ctl);
  const ids = ["--subscription", sub, "--database-id", "51"];
  const nothing = await ctl(["cloud", "database", "update", ...ids], { env });
  assertEquals([nothing.code, nothing.requests], [2, []]);
  assertMatch(nothing.stderr, /^Error: Nothing to change\n {2}tip: Give --name, --dataset-size-gb, or a -d body/);
  const updated = await ctl([
    "cloud",
    "database",
    "update",
    ...ids,
    "-d",
    '{"memoryLimitInGb": 3, "name": "body-name"}',
    "--name",
    "renamed",
    "--wait",
    "--wait-interval",
    "0.1",
  ], TTY);
  assertEquals(updated.code, 0, updated.stderr);
  const fields = keyValues(updated.stdout);
  assertEquals([fields.ID, fields.NAME, fields.STATUS, fields["SIZE (GB)"]], [
    "51",
    "renamed",
    "active",
    "3 (memory limit)",
  ]);

  const unconfirmed = await ctl(["cloud", "database", "delete", ...ids], { env });
  assertEquals([unconfirmed.code, unconfirmed.requests], [2, []]);
  assertEquals(
    unconfirmed.stderr,
    `Error: Delete database 51 of subscription ${sub}: confirm with --yes (there is no terminal to ask on)\n`,
  );
  const declined = await ctl(["cloud", "database", "delete", ...ids], { env, tty: { stdin: true }, answers: [false] });
  assertEquals([declined.code, declined.requests, ctl.questions.at(-1)], [
    12,
    [],
    `Delete database 51 of subscription ${sub}?`,
  ]);
  const deleted = await ctl(["cloud", "database", "delete", ...ids, "--wait", "--wait-interval", "0.1"], {
    ...TTY,
    tty: { stdin: true, stdout: true },
    answers: [true],
  });
  assertEquals(deleted.code, 0, deleted.stderr);
  const task = keyValues(deleted.stdout);
  assertEquals(Object.keys(task), ["TASK ID", "STATUS", "COMMAND", "RESOURCE", "DESCRIPTION"]);
  assertEquals([task.STATUS, task.COMMAND, task.RESOURCE], ["processing-completed", "databaseDeleteRequest", "51"]);
  const after = await ctl(["cloud", "database", "get", ...ids], { env });
  assertEquals(after.code, 5);
});

Deno.test("cloud database list: exactly 100 databases, the page after the last answering 404, lists them all", async () => {
  await using ctl = await inProcessCtl({ quirks: new Set(["page-404"]) });
  const sub = (await ctl(["cloud", "subscription", "list", "-q", "[0].id", "--raw"], { env })).stdout.trim();
  const have = JSON.parse(
    (await ctl(["cloud", "database", "list", "--subscription", sub, "-o", "json"], { env })).stdout,
  );
  for (let i = have.length; i < 100; i++) {
    const res = await ctl.emulator.cloud.request(`http://cloud.test/v1/subscriptions/${sub}/databases`, {
      method: "POST",
      headers: { "x-api-key": "demo-key", "x-api-secret-key": "demo-secret", "content-type": "application/json" },
      body: JSON.stringify({ name: `db${i}`, datasetSizeInGb: 1 }),
    });
    assertEquals(res.status, 202);
  }
  const list = await ctl(["cloud", "database", "list", "--subscription", sub, "-o", "json"], { env });
  assertEquals([list.code, JSON.parse(list.stdout).length], [0, 100], list.stderr);
  assertEquals(list.requests, [
    `GET /v1/subscriptions/${sub}/databases?offset=0&limit=100`,
    `GET /v1/subscriptions/${sub}/databases?offset=100&limit=100`,
  ]);
});

Deno.test("cloud database create: datasetSizeInGb (current) or memoryLimitInGb (deprecated), by flag or -d; SIZE shows either", async () => {
  await using ctl = await inProcessCtl();
  const sub = await firstSubscription(ctl);
  const json = async (argv: string[]) => {
    const r = await ctl(["cloud", "database", ...argv, "--subscription", sub, "-o", "json"], { env });
    assertEquals(r.code, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  const fromBody = await json(["create", "-d", '{"name":"from-body","datasetSizeInGb":1}', "--wait"]);
  assertEquals([fromBody.name, fromBody.datasetSizeInGb], ["from-body", 1]);
  const byFlag = await json(["create", "--name", "by-flag", "--dataset-size-gb", "2", "--wait"]);
  assertEquals([byFlag.datasetSizeInGb, byFlag.memoryLimitInGb], [2, undefined]);
  const deprecated = await json(["create", "--name", "old-style", "--memory-limit-gb", "3", "--wait"]);
  assertEquals([deprecated.memoryLimitInGb, deprecated.datasetSizeInGb], [3, undefined]);
  for (
    const [argv, message] of [
      [
        ["--name", "x"],
        /--dataset-size-gb is required\n {2}tip: Give --dataset-size-gb <gb> \(or the deprecated --memory-limit-gb\)/,
      ],
      [
        ["--name", "x", "--dataset-size-gb", "1", "--memory-limit-gb", "1"],
        /Give --dataset-size-gb or --memory-limit-gb, not both/,
      ],
      [["-d", '{"name":"x","datasetSizeInGb":1}', "--memory-limit-gb", "1"], /not both/],
    ] as const
  ) {
    const r = await ctl(["cloud", "database", "create", "--subscription", sub, ...argv], { env });
    assertEquals([r.code, r.requests], [2, []], r.stderr);
    assertMatch(r.stderr, message);
  }
  const table = await ctl(["cloud", "database", "list", "--subscription", sub], TTY);
  assertMatch(table.stdout.split("\n")[1], /│ SIZE \(GB\) +│/);
  assertMatch(table.stdout, /│ by-flag +│ active +│ 2 +│/);
  assertMatch(table.stdout, /│ old-style +│ active +│ 3 \(memory limit\) +│/);
});
