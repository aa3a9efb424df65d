import { assertEquals, assertMatch } from "../../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../testing/ctl_in_process.ts";
import { keyValues, tableCells, tableRows } from "../../../testing/table_text.ts";

const env = EMULATOR_ENV;
const table = { env, tty: { stdout: true }, columns: 200 };
const GUID = "6f1c2a52-0000-4000-8000-000000000001";

Deno.test("enterprise crdb list and get: guid, name, instances, memory for people", async () => {
  await using ctl = await inProcessCtl();
  const r = await ctl(["enterprise", "crdb", "list"], table);
  assertEquals(tableCells(r.stdout)[0], ["GUID", "NAME", "INSTANCES", "MEMORY"]);
  assertEquals(tableRows(r.stdout), [{ GUID, NAME: "global-sessions", INSTANCES: "1", MEMORY: "1 GiB" }]);
  const one = await ctl(["enterprise", "crdb", "get", GUID], { env });
  assertEquals([one.code, one.requests, JSON.parse(one.stdout).name], [
    0,
    [`GET /v1/crdbs/${GUID}`],
    "global-sessions",
  ]);
  const missing = await ctl(["enterprise", "crdb", "get", GUID.replace(/1$/, "9")], { env });
  assertEquals(missing.code, 5);
  assertMatch(missing.stderr, /tip: See the ids with: ctl enterprise crdb list/);
  const bad = await ctl(["enterprise", "crdb", "get", "../bdbs"], { env });
  assertEquals([bad.code, bad.requests], [2, []]);
  assertMatch(bad.stderr, /<guid> must be a guid such as/);
});

Deno.test("enterprise crdb create: prints its task, which crdb-task list follows to finished", async () => {
  await using ctl = await inProcessCtl({ taskDelayMs: 0 });
  const r = await ctl(["enterprise", "crdb", "create", "--name", "geo", "--memory-size", "512MiB"], table);
  assertEquals([r.code, r.requests], [0, ["POST /v1/crdbs"]], r.stderr);
  const task = keyValues(r.stdout);
  assertEquals(Object.keys(task), ["ID", "STATUS", "CRDB GUID"]);
  assertEquals(task.STATUS, "started");
  const created = JSON.parse((await ctl(["enterprise", "crdb", "get", task["CRDB GUID"]], { env })).stdout);
  assertEquals([created.name, created.default_db_config.memory_size], ["geo", 512 * 1024 ** 2]);
  const tasks = await ctl(["enterprise", "crdb-task", "list"], table);
  assertEquals(tableCells(tasks.stdout)[0], ["ID", "STATUS", "CRDB GUID"]);
  assertEquals(tableRows(tasks.stdout).find((row) => row.ID === task.ID)?.STATUS, "finished");
  const noName = await ctl(["enterprise", "crdb", "create"], { env });
  assertEquals([noName.code, noName.requests], [2, []]);
  assertMatch(noName.stderr, /Missing --name/);
});
