import { assert, assertEquals, assertMatch } from "../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../testing/ctl_in_process.ts";
import { tableCells } from "../../testing/table_text.ts";

const env = EMULATOR_ENV;
const widest = (text: string) => Math.max(...text.trimEnd().split("\n").map((line) => [...line].length));

Deno.test("tables at 80 and 120 columns: ids the next command needs are whole (support-package list, cloud task list)", async () => {
  await using ctl = await inProcessCtl();
  const state = { ...env, XDG_STATE_HOME: `${ctl.dir}/state` };
  assertEquals((await ctl(["enterprise", "support-package", "cluster"], { env: state })).code, 0);
  const [job] = JSON.parse((await ctl(["enterprise", "support-package", "list", "-o", "json"], { env: state })).stdout);
  const db = await ctl([
    "cloud",
    "database",
    "create",
    "--subscription",
    "156400",
    "--name",
    "c",
    "--memory-limit-gb",
    "1",
  ], {
    env,
  });
  const taskId = JSON.parse(db.stdout).taskId;
  for (const columns of [80, 120]) {
    const tty = { stdout: true, stderr: true };
    const jobs = await ctl(["enterprise", "support-package", "list"], { env: state, tty, columns });
    assertEquals(jobs.code, 0, jobs.stderr);
    assert(widest(jobs.stdout) <= columns, jobs.stdout);
    const [head, row] = tableCells(jobs.stdout);
    assertEquals(row[head.indexOf("TASK ID")], job.task_id, `${columns}: ${jobs.stdout}`);
    const tasks = await ctl(["cloud", "task", "list"], { env, tty, columns });
    assert(widest(tasks.stdout) <= columns, tasks.stdout);
    const cells = tableCells(tasks.stdout);
    assert(cells.some((r) => r[0] === taskId), `${columns}: ${tasks.stdout}`);
  }
});

Deno.test("-o table of wide objects at 80 columns: ids, names and status, the rest named on stderr with --wide", async () => {
  await using ctl = await inProcessCtl();
  const tty = { stdout: true, stderr: true };
  for (
    const [argv, keys] of [
      [["api", "cloud", "get", "/subscriptions", "-q", "subscriptions", "-o", "table"], ["ID", "NAME", "STATUS"]],
      [["api", "enterprise", "get", "/v1/bdbs", "-o", "table"], ["UID", "NAME", "STATUS"]],
    ] as const
  ) {
    const r = await ctl([...argv], { env, tty, columns: 80 });
    assertEquals(r.code, 0, r.stderr);
    assert(widest(r.stdout) <= 80, r.stdout);
    const [head, ...rows] = tableCells(r.stdout);
    for (const key of keys) assert(head.includes(key), `${key} in ${head.join(" ")}`);
    const id = head.indexOf(keys[0]);
    assert(rows.every((row) => !row[id].endsWith("…")), r.stdout);
    for (const cell of head) assert(!cell.endsWith("…"), `header '${cell}' whole`);
    // One note, wrapped at the terminal's width.
    const note = `${r.stderr.trimEnd().replaceAll("\n", " ")}\n`;
    assertMatch(note, /^\d+ more columns? did not fit \([^)]+\): show them with --wide, -o json, or -q\n$/);
  }
});

Deno.test("--wide shows every column uncut, even past the terminal; it is a global flag", async () => {
  await using ctl = await inProcessCtl();
  const tty = { stdout: true, stderr: true };
  const all = JSON.parse((await ctl(["api", "enterprise", "get", "/v1/bdbs"], { env })).stdout);
  for (
    const argv of [["api", "enterprise", "get", "/v1/bdbs", "-o", "table", "--wide"], [
      "--wide",
      "api",
      "enterprise",
      "get",
      "/v1/bdbs",
      "-o",
      "table",
    ]]
  ) {
    const r = await ctl(argv, { env, tty, columns: 80 });
    assertEquals([r.code, r.stderr], [0, ""]);
    const [head, ...rows] = tableCells(r.stdout);
    assertEquals(head.length, new Set(all.flatMap((db: object) => Object.keys(db))).size);
    assert(rows.flat().every((cell) => !cell.endsWith("…")), r.stdout);
  }
  const list = await ctl(["cloud", "subscription", "list", "--wide"], { env, tty, columns: 80 });
  assertEquals(list.code, 0, list.stderr);
  assert(!list.stdout.includes("…"), list.stdout);
});

Deno.test("-o with a near miss of a format says which it meant, whatever the command", async () => {
  await using ctl = await inProcessCtl();
  for (const [word, meant] of [["yml", "yaml"], ["jsn", "json"], ["tabel", "table"], ["JSON", "json"]]) {
    const r = await ctl(["cloud", "account", "get", "-o", word], { env });
    assertEquals([r.code, r.requests], [2, []], word);
    assertEquals(
      r.stderr,
      `Error: -o takes json, yaml, table or auto; got '${word}'\n  tip: Did you mean -o ${meant}?\n`,
    );
  }
  const far = await ctl(["cloud", "account", "get", "-o", "out.txt"], { env });
  assertMatch(far.stderr, /got 'out\.txt'\n {2}tip: This command writes no file; use > to save its output\n$/);
});
