import { assertEquals, assertMatch } from "../../../tests/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../tests/ctl_in_process.ts";
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

Deno.test("cloud task list and get: every page of tasks, --limit caps, columns for people", async () => {
  await using ctl = await inProcessCtl();
  const ids = [];
  for (let i = 0; i < 102; i++) ids.push(await startCreate(ctl, 1));
  const all = await ctl(["cloud", "task", "list", "-q", "length(@)"], { env });
  assertEquals([all.stdout.trim(), all.requests], ["102", [
    "GET /v1/tasks?offset=0&limit=100",
    "GET /v1/tasks?offset=100&limit=100",
  ]]);
  const capped = await ctl(["cloud", "task", "list", "--limit", "5", "-q", "[].taskId"], { env });
  assertEquals(JSON.parse(capped.stdout), ids.slice(-5).reverse());
  const one = await ctl(["cloud", "task", "get", ids[0]], { env, tty: { stdout: true }, columns: 200 });
  const lines = one.stdout.split("\n");
  assertMatch(lines[1], /^│ TASK ID +│ STATUS +│ COMMAND +│ RESOURCE │ DESCRIPTION +│$/);
  assertMatch(
    lines[2],
    new RegExp(`^│ ${ids[0]} │ processing-completed │ createDatabaseRequest │ \\d+ +│ Request processing`),
  );
  const unknown = await ctl(["cloud", "task", "get", "no-such-task"], { env });
  assertEquals([unknown.code, unknown.requests.length], [5, 1]);
});
