import { assert, assertEquals, assertMatch } from "../../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../testing/ctl_in_process.ts";
import { createWaitingArgv } from "../../../testing/ctl_process.ts";
import { keyValues } from "../../../testing/table_text.ts";
import { Interrupted } from "../../context.ts";

const env = EMULATOR_ENV;

/** Starts a database create through the raw layer and returns its task id. */
async function startCreate(ctl: Awaited<ReturnType<typeof inProcessCtl>>, memoryLimitInGb: number) {
  const sub = (await ctl(["api", "cloud", "get", "/subscriptions", "-q", "subscriptions[0].id"], { env })).stdout
    .trim();
  const body = JSON.stringify({ name: `db-${crypto.randomUUID().slice(0, 6)}`, memoryLimitInGb });
  const created = await ctl([
    "api",
    "cloud",
    "post",
    `/subscriptions/${sub}/databases`,
    "-d",
    body,
    "-q",
    "taskId",
    "--raw",
  ], {
    env,
  });
  return created.stdout.trim();
}

Deno.test("cloud task wait: prints the finished task, with its resource id", async () => {
  await using ctl = await inProcessCtl();
  const taskId = await startCreate(ctl, 1);
  const r = await ctl(["cloud", "task", "wait", taskId, "-q", "[status, response.resourceId != null]"], { env });
  assertEquals([r.code, JSON.parse(r.stdout)], [0, ["processing-completed", true]]);
  const list = await ctl(["cloud", "task", "list", "-o", "table"], { env, tty: { stdout: true }, columns: 200 });
  assertMatch(list.stdout, new RegExp(`│ ${taskId} +│ processing-completed`));
});

Deno.test("cloud task wait: a failed task exits 8 with its description; an invalid id fails before any request", async () => {
  await using ctl = await inProcessCtl();
  const taskId = await startCreate(ctl, 500);
  const failed = await ctl(["cloud", "task", "wait", taskId], { env });
  assertEquals(failed.code, 8);
  assertMatch(failed.stderr, new RegExp(`^Error: Task ${taskId} failed: .*50`));
  const bad = await ctl(["cloud", "task", "wait", "x/../y"], { env });
  assertEquals([bad.code, bad.requests], [2, []]);
  assertMatch(bad.stderr, /<taskId> must be a task id/);
});

Deno.test("cloud task wait: running out of time exits 11 naming the command that resumes", async () => {
  await using ctl = await inProcessCtl({ taskDelayMs: 60_000 });
  const taskId = await startCreate(ctl, 1);
  const r = await ctl(["cloud", "task", "wait", taskId, "--wait-timeout", "1", "--wait-interval", "0.2"], { env });
  assertEquals(r.code, 11);
  assertMatch(
    r.stderr,
    new RegExp(
      `^Error: Task ${taskId} did not finish within 1 s \\(last status: (received|processing-in-progress)\\)\n`,
    ),
  );
  assertMatch(r.stderr, new RegExp(`tip: The task goes on; keep waiting with: ctl cloud task wait ${taskId}\n$`));
});

Deno.test("cloud task wait: Ctrl+C exits 130 and says the task goes on and how to follow it", async () => {
  await using ctl = await inProcessCtl({ taskDelayMs: 60_000 });
  const taskId = await startCreate(ctl, 1);
  const interrupt = new AbortController();
  setTimeout(() => interrupt.abort(new Interrupted({ name: "SIGINT", number: 2 })), 200);
  const r = await ctl(["cloud", "task", "wait", taskId, "--wait-interval", "0.1"], {
    env,
    interrupt: interrupt.signal,
  });
  assertEquals(r.code, 130);
  assertEquals(
    r.stderr,
    `Interrupted (SIGINT): task ${taskId} goes on in the cloud; follow it with: ctl cloud task wait ${taskId}\n`,
  );
});

Deno.test("cloud task wait: a spinner with status and time on a terminal's stderr, nothing on stdout", async () => {
  await using ctl = await inProcessCtl({ taskDelayMs: 400 });
  const taskId = await startCreate(ctl, 1);
  const r = await ctl(["cloud", "task", "wait", taskId, "--wait-interval", "0.1", "-q", "status", "--raw"], {
    env,
    tty: { stderr: true },
  });
  assertEquals([r.code, r.stdout], [0, "processing-completed\n"]);
  assertMatch(r.stderr, new RegExp(`\\r\\x1b\\[K. Task ${taskId}: (received|processing-in-progress) \\(0 s\\)`));
  assertEquals(r.stderr.endsWith("\r\x1b[K"), true, "the line is erased at the end");
});

Deno.test("cloud task list and get: every task in one read, --limit caps, columns for people", async () => {
  await using ctl = await inProcessCtl();
  const ids = [];
  for (let i = 0; i < 102; i++) ids.push(await startCreate(ctl, 1));
  const all = await ctl(["cloud", "task", "list", "-q", "length(@)"], { env });
  assertEquals([all.stdout.trim(), all.requests], ["102", ["GET /v1/tasks"]]);
  const capped = await ctl(["cloud", "task", "list", "--limit", "5", "-q", "[].taskId"], { env });
  assertEquals(JSON.parse(capped.stdout), ids.slice(-5).reverse());
  const one = await ctl(["cloud", "task", "get", ids[0]], { env, tty: { stdout: true }, columns: 200 });
  const task = keyValues(one.stdout);
  assertEquals(Object.keys(task), ["TASK ID", "STATUS", "COMMAND", "RESOURCE", "DESCRIPTION"]);
  assertEquals([task["TASK ID"], task.STATUS, task.COMMAND], [ids[0], "processing-completed", "databaseCreateRequest"]);
  assertMatch(task.RESOURCE, /^\d+$/);
  assertMatch(task.DESCRIPTION, /^Request processing/);
  const unknown = await ctl(["cloud", "task", "get", "3f2a9c1e-5d4b-4a8e-9c71-0b6d2e4f8a13"], { env });
  assertEquals([unknown.code, unknown.requests.length], [5, 1]);
});

/** Sends `count` requests to the emulator's cloud side directly. */
async function post(
  ctl: { emulator: { cloud: { request: (url: string, init: RequestInit) => Response | Promise<Response> } } },
  path: string,
  bodies: unknown[],
) {
  for (const body of bodies) {
    const res = await ctl.emulator.cloud.request(`http://cloud.test/v1${path}`, {
      method: "POST",
      headers: { "x-api-key": "demo-key", "x-api-secret-key": "demo-secret", "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    assertEquals(res.status, 202, await res.text());
  }
}

Deno.test("cloud task list and subscription list: 120 tasks and 100 subscriptions in one read each, no paging", async () => {
  await using ctl = await inProcessCtl({ quirks: new Set(["page-404"]) });
  const sub = (await ctl(["cloud", "subscription", "list", "-q", "[0].id", "--raw"], { env })).stdout.trim();
  await post(
    ctl,
    `/subscriptions/${sub}/databases`,
    Array.from({ length: 120 }, (_, i) => ({ name: `t${i}`, datasetSizeInGb: 1 })),
  );
  await post(ctl, "/subscriptions", Array.from({ length: 97 }, (_, i) => ({ name: `s${i}` })));
  // The old reader asked for the same page forever: stop it if it starts again.
  const interrupt = AbortSignal.timeout(10_000);
  const tasks = await ctl(["cloud", "task", "list", "-o", "json"], { env, interrupt });
  assertEquals([tasks.code, JSON.parse(tasks.stdout).length, tasks.requests], [0, 217, ["GET /v1/tasks"]]);
  const limited = await ctl(["cloud", "task", "list", "--limit", "5", "-o", "json"], { env, interrupt });
  assertEquals([JSON.parse(limited.stdout).length, limited.requests], [5, ["GET /v1/tasks"]]);
  const subs = await ctl(["cloud", "subscription", "list", "-o", "json"], { env, interrupt });
  assertEquals([subs.code, JSON.parse(subs.stdout).length, subs.requests], [0, 100, ["GET /v1/subscriptions"]]);
});

Deno.test("cloud task wait: the spinner shows each state the task goes through", async () => {
  // The emulator's clock moves 100 ms whenever it is read: each state lasts several polls.
  let clock = Date.UTC(2026, 0, 1);
  await using ctl = await inProcessCtl({ taskDelayMs: 2400, now: () => (clock += 100) });
  const taskId = await startCreate(ctl, 1);
  const r = await ctl(["cloud", "task", "wait", taskId, "--wait-interval", "0.1"], { env, tty: { stderr: true } });
  assertEquals(r.code, 0, r.stderr);
  const states = [...r.stderr.matchAll(new RegExp(`Task ${taskId}: ([a-z-]+)`, "g"))].map((m) => m[1]);
  assertEquals([...new Set(states)], ["received", "initialized", "processing-in-progress", "processing-completed"]);
});

Deno.test("cloud task get and wait: an id that is not a task id's shape fails at once, naming the shape", async () => {
  await using ctl = await inProcessCtl();
  for (const verb of ["get", "wait"]) {
    for (const bad of ["no-such-task", "156400", "3f2a9c1e-5d4b-4a8e-9c71"]) {
      const r = await ctl(["cloud", "task", verb, bad], { env });
      assertEquals([r.code, r.requests], [2, []], `${verb} ${bad}`);
      assert(
        r.stderr.startsWith(
          `Error: <taskId> must be a task id, a UUID such as 3f2a9c1e-5d4b-4a8e-9c71-0b6d2e4f8a13; got '${bad}'\n` +
            "  tip: ctl cloud task list shows the account's tasks\n",
        ),
        r.stderr,
      );
    }
  }
});

/** A clock that moves 5 s each time it is read: a 404 grace of 10 s passes in two polls. */
function hurried() {
  let clock = Date.UTC(2026, 0, 1);
  return () => (clock += 5_000);
}

Deno.test("cloud task wait: a task this run did not start is only 'not found', never 'after it was accepted'", async () => {
  await using ctl = await inProcessCtl();
  const id = "3f2a9c1e-5d4b-4a8e-9c71-0b6d2e4f8a13";
  const r = await ctl(["cloud", "task", "wait", id, "--wait-interval", "0.1"], { env, now: hurried() });
  assertEquals(r.code, 5, r.stderr);
  assertEquals(
    r.stderr,
    `Error: Task ${id} was not found: the API answered 404 for 10 s\n` +
      "  tip: Check the id: ctl cloud task list shows the account's tasks\n",
  );
  // One this run started, and the API accepted, is said to be missing after that.
  ctl.emulator.faults.cloud.add({ kind: "status", status: 404 }, 100, "/v1/tasks/");
  const sub = ["--subscription", "156400", "--database-id", "51"];
  const started = await ctl(
    ["cloud", "database", "update", ...sub, "--name", "n", "--wait", "--wait-interval", "0.1"],
    {
      env,
      now: hurried(),
    },
  );
  assertEquals(started.code, 5, started.stderr);
  assertMatch(started.stderr, /^Error: Task \S+ was not found: the API answered 404 for 10 s after it was accepted\n/);
});

Deno.test("a --wait records how long its task took; task list --recent shows age and the usual duration; watch says each change", async () => {
  let clock = Date.parse("2026-11-29T10:00:00Z");
  await using ctl = await inProcessCtl({ taskDelayMs: 50 });
  const now = () => clock += 1_000; // every reading a second later: the wait takes a few seconds
  const sub = (await ctl(["api", "cloud", "get", "/subscriptions", "-q", "subscriptions[0].id"], { env })).stdout
    .trim();
  const create = (name: string) => ctl(createWaitingArgv(sub, name, 1, "--wait-interval", "0.1"), { env, now });
  assertEquals((await create("timed-1")).code, 0);
  const history = JSON.parse(await Deno.readTextFile(`${ctl.dir}/.local/state/storectl/task-durations.json`));
  const [type] = Object.keys(history);
  assert(history[type].seconds.length === 1 && history[type].seconds[0] > 0, JSON.stringify(history));

  const recent = await ctl(["cloud", "task", "list", "--recent", "-o", "json"], { env });
  const rows = JSON.parse(recent.stdout);
  assert(rows.length > 0, recent.stdout);
  const timed = rows.find((r: { commandType: string }) => r.commandType === type);
  assertEquals(timed.usually_seconds, history[type].seconds[0]);
  assert(typeof timed.age_seconds === "number", recent.stdout);
  const table = await ctl(["cloud", "task", "list", "--recent"], { env, tty: { stdout: true }, columns: 220 });
  assertMatch(table.stdout, /UPDATED +│ USUALLY/);

  const taskId = await startCreate(ctl, 1);
  const watched = await ctl(["cloud", "task", "watch", taskId, "--wait-interval", "0.1", "-q", "status"], { env });
  assertEquals([watched.code, JSON.parse(watched.stdout)], [0, "processing-completed"]);
  assertMatch(watched.stderr, new RegExp(`^Task ${taskId}: \\S+.* \\(\\d+ s waited\\)$`, "m"));
  assertMatch(watched.stderr, new RegExp(`Task ${taskId}: processing-completed \\(\\d+ s waited\\)`));
});
