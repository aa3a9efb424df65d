import { assert, assertEquals, assertMatch } from "../../../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../../testing/ctl_in_process.ts";
import { keyValues } from "../../../../testing/table_text.ts";
import { downloadMessage } from "./jobs.ts";

Deno.test("support-package --no-wait starts a background run; status follows it to completed", async () => {
  await using ctl = await inProcessCtl();
  const env = { ...EMULATOR_ENV, XDG_STATE_HOME: `${ctl.dir}/state` };
  const launched: string[][] = [];
  let background: Promise<unknown> = Promise.resolve();
  const launchDetached = (args: readonly string[]) => {
    launched.push([...args]);
    background = new Promise((resolve) => setTimeout(resolve, 50)).then(() => ctl([...args], { env }));
    return Promise.resolve(4242);
  };
  const r = await ctl(
    ["enterprise", "support-package", "database", "2", "--no-wait", "--optimize", "-o", "pkg.tar.gz"],
    {
      env,
      launchDetached,
      tty: { stdout: true },
    },
  );
  assertEquals([r.code, r.requests], [0, []], r.stderr);
  const id = r.stdout.trim();
  assertMatch(id, /^sp-\d{8}T\d{6}-[0-9a-f]{4}$/);
  assertMatch(r.stderr, new RegExp(`follow it with: ctl enterprise support-package status ${id}\\n$`));
  assertEquals(launched, [[
    "enterprise",
    "support-package",
    "database",
    "2",
    "--file",
    `${ctl.dir}/pkg.tar.gz`,
    "--job-id",
    id,
    "--yes",
    "--skip-checks",
    "--wait-timeout",
    "600",
    "--first-byte-timeout",
    "300",
    "--log-lines",
    "1000",
    "--optimize",
    "--timeout",
    "30",
    "--retries",
    "3",
  ]]);
  const early = JSON.parse((await ctl(["enterprise", "support-package", "status", id, "-o", "json"], { env })).stdout);
  assertEquals([early.task_id, early.status, early.pid, early.file_path], [
    id,
    "in_progress",
    4242,
    `${ctl.dir}/pkg.tar.gz`,
  ]);
  await background;
  const done = await ctl(["enterprise", "support-package", "status", id, "-o", "json"], { env });
  const job = JSON.parse(done.stdout);
  assertEquals([job.status, job.progress, job.package_type], ["completed", 100, "database"]);
  assertEquals(job.result.file_size, (await Deno.stat(`${ctl.dir}/pkg.tar.gz`)).size);
  assert(job.result.optimization.files_truncated > 0);
  const table = await ctl(["enterprise", "support-package", "status", id], {
    env,
    tty: { stdout: true },
    columns: 300,
  });
  const shown = keyValues(table.stdout);
  assertEquals([shown["TASK ID"], shown.STATUS, shown.PROGRESS], [id, "completed", "100%"]);
  assertMatch(shown.MESSAGE, /^Support package saved to /);
});

Deno.test("support-package list shows every run of this machine, failed ones too; status of an unknown id is 5", async () => {
  await using ctl = await inProcessCtl();
  const env = { ...EMULATOR_ENV, XDG_STATE_HOME: `${ctl.dir}/state` };
  const empty = await ctl(["enterprise", "support-package", "list"], { env, tty: { stdout: true } });
  assertEquals([empty.code, empty.stderr], [0, "No support packages generated on this machine yet\n"]);
  assertEquals((await ctl(["enterprise", "support-package", "cluster"], { env })).code, 0);
  assertEquals((await ctl(["enterprise", "support-package", "database", "9"], { env })).code, 5);
  const list = JSON.parse((await ctl(["enterprise", "support-package", "list", "-o", "json"], { env })).stdout);
  assertEquals(list.map((j: { status: string; package_type: string }) => [j.package_type, j.status]).sort(), [
    ["cluster", "completed"],
    ["database", "failed"],
  ]);
  const failed = list.find((j: { status: string }) => j.status === "failed");
  assertMatch(failed.message, /database '9' does not exist/);
  const state = JSON.parse(await Deno.readTextFile(`${ctl.dir}/state/storectl/support-packages.json`));
  assertEquals(state.length, 2);
  assertEquals((await Deno.stat(`${ctl.dir}/state/storectl/support-packages.json`)).mode! & 0o777, 0o600);
  const unknown = await ctl(["enterprise", "support-package", "status", "sp-nope"], { env });
  assertEquals(unknown.code, 5);
  assertMatch(unknown.stderr, /No support-package task 'sp-nope' on this machine\n {2}tip: See the known ones with/);
  const both = await ctl(["enterprise", "support-package", "cluster", "--wait", "--no-wait"], { env });
  assertEquals([both.code, both.requests], [2, []]);
});

Deno.test("support-package --no-wait: a background run that fails before its first request marks its job failed", async () => {
  await using ctl = await inProcessCtl();
  const env = { ...EMULATOR_ENV, XDG_STATE_HOME: `${ctl.dir}/state` };
  const launchDetached = async (args: readonly string[]) => {
    // The background process finds no credentials (its environment lost them), and fails
    // before the foreground has even written its pid down.
    await ctl([...args], { env: { ...env, STORE_ENTERPRISE_URL: undefined } });
    return 4242;
  };
  const r = await ctl(["enterprise", "support-package", "cluster", "--no-wait"], {
    env,
    launchDetached,
    tty: { stdout: true },
  });
  assertEquals(r.code, 0, r.stderr);
  const job = JSON.parse(
    (await ctl(["enterprise", "support-package", "status", r.stdout.trim(), "-o", "json"], { env }))
      .stdout,
  );
  assertEquals([job.status, job.pid], ["failed", 4242], JSON.stringify(job));
});

Deno.test("support-package list: a run refused before it started (no, missing --yes, not writable) is no job", async () => {
  await using ctl = await inProcessCtl();
  const env = { ...EMULATOR_ENV, XDG_STATE_HOME: `${ctl.dir}/state` };
  await Deno.writeTextFile(`${ctl.dir}/pkg.tar.gz`, "keep");
  await Deno.writeTextFile(`${ctl.dir}/not-a-dir`, "");
  const refusals: [string[], { tty?: { stdin: boolean }; answers?: boolean[] }, number][] = [
    [["-o", "pkg.tar.gz"], { tty: { stdin: true }, answers: [false] }, 12], // answered no
    [["-o", "pkg.tar.gz"], {}, 2], // no terminal and no --yes
    [["-o", "not-a-dir/pkg.tar.gz"], {}, 13], // the directory takes no file
    [["--upload"], {}, 3], // no upload key
  ];
  for (const [args, options, code] of refusals) {
    const r = await ctl(["enterprise", "support-package", "cluster", ...args], { env, ...options });
    assertEquals([r.code, r.requests], [code, []], r.stderr);
  }
  const list = await ctl(["enterprise", "support-package", "list", "-o", "json"], { env });
  assertEquals(JSON.parse(list.stdout), []);
});

Deno.test("support-package status says when a background job has gone silent", async () => {
  await using ctl = await inProcessCtl();
  const env = { ...EMULATOR_ENV, XDG_STATE_HOME: `${ctl.dir}/state` };
  const old = new Date(Date.now() - 5 * 60_000).toISOString();
  await Deno.mkdir(`${ctl.dir}/state/storectl`, { recursive: true });
  await Deno.writeTextFile(
    `${ctl.dir}/state/storectl/support-packages.json`,
    JSON.stringify([{
      task_id: "sp-1",
      status: "in_progress",
      progress: 40,
      message: "Downloading: 4 MB of 10 MB",
      package_type: "cluster",
      started: old,
      updated: old,
      pid: 1,
    }]),
  );
  const r = await ctl(["enterprise", "support-package", "status", "sp-1", "-o", "json"], { env });
  assertMatch(
    JSON.parse(r.stdout).message,
    /^Downloading: 4 MB of 10 MB \(no news for 300 s: the background process may have ended\)$/,
  );
});

Deno.test("downloadMessage() gives a background job's progress in IEC units, as every size ctl prints", () => {
  assertEquals(downloadMessage(12.5 * 1024 ** 2, 40 * 1024 ** 2), "Downloading: 12.5 MiB of 40 MiB");
  assertEquals(downloadMessage(2048, undefined), "Downloading: 2 KiB");
});
