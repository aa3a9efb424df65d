import { assert, assertEquals, assertMatch } from "../../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../testing/ctl_in_process.ts";
import { keyValues, tableCells, tableRows } from "../../../testing/table_text.ts";

const env = EMULATOR_ENV;
const table = { env, tty: { stdout: true }, columns: 200 };
const GIB = 1024 ** 3;

Deno.test("enterprise database list: a table with sizes for people, the endpoint's port and address; JSON keeps bytes", async () => {
  await using ctl = await inProcessCtl();
  const r = await ctl(["enterprise", "database", "list"], table);
  assertEquals(r.code, 0, r.stderr);
  assertEquals(tableCells(r.stdout)[0], [
    "UID",
    "NAME",
    "STATUS",
    "MEMORY",
    "SHARDS",
    "REPLICATION",
    "PORT",
    "ENDPOINT",
    "VERSION",
  ]);
  const rows = tableRows(r.stdout);
  assertEquals(rows.map((row) => row.UID), ["1", "2", "3", "4"]);
  // A real bdb has port 0 at the top level: the port is its endpoint's.
  assertEquals(
    rows.map((row) => [row.PORT, row.ENDPOINT]),
    [1, 2, 3, 4].map((uid) => [
      String(12000 + uid),
      `redis-${12000 + uid}.cluster.example.local`,
    ]),
  );
  assert(rows.every((row) => /^\d+ GiB$/.test(row.MEMORY) && row.STATUS === "active"), r.stdout);
  const json = JSON.parse((await ctl(["enterprise", "database", "list"], { env })).stdout);
  assertEquals(json.length, 4);
  assert(json.every((b: { memory_size: number }) => Number.isInteger(b.memory_size) && b.memory_size >= GIB));
  const yaml = await ctl(["enterprise", "database", "get", "1", "-o", "yaml"], { env });
  assertMatch(yaml.stdout, /^memory_size: \d{10}$/m);
  const names = await ctl(["enterprise", "database", "list", "-q", "[].uid"], { env });
  assertEquals(JSON.parse(names.stdout), [1, 2, 3, 4]);
});

Deno.test("enterprise database get: KEY/VALUE rows; an unknown id is exit 5 at once, a bad id exit 2 with no request", async () => {
  await using ctl = await inProcessCtl();
  const one = await ctl(["enterprise", "database", "get", "2"], table);
  assertEquals(keyValues(one.stdout).UID, "2");
  const missing = await ctl(["enterprise", "database", "get", "99"], { env });
  assertEquals([missing.code, missing.requests], [5, ["GET /v1/bdbs/99"]]);
  assertEquals(
    missing.stderr,
    "Error: Not found: GET /v1/bdbs/99: database '99' does not exist\n" +
      "  tip: See the ids with: ctl enterprise database list\n",
  );
  for (const bad of ["abc", "1.5", "-1", "0", "1e3"]) {
    const r = await ctl(["enterprise", "database", "get", "--", bad], { env });
    assertEquals([r.code, r.requests], [2, []], bad);
    assertMatch(
      r.stderr,
      new RegExp(`<uid> must be a database id \\(a positive whole number\\); got '${bad.replace(".", "\\.")}'`),
    );
  }
});

Deno.test("enterprise database create: --memory-size takes SI and IEC units; JSON has the bytes", async () => {
  await using ctl = await inProcessCtl();
  const cases: [string, number][] = [["1GiB", GIB], ["512MB", 512_000_000], ["1.5GB", 1_500_000_000], ["4096", 4096]];
  for (const [size, bytes] of cases) {
    const name = `db-${bytes}`;
    const r = await ctl(["enterprise", "database", "create", "--name", name, "--memory-size", size], { env });
    assertEquals(r.code, 0, r.stderr);
    assertEquals(r.requests, ["POST /v1/bdbs"]);
    const created = JSON.parse(r.stdout);
    assertEquals([created.name, created.memory_size], [name, bytes]);
  }
  const shown = await ctl(["enterprise", "database", "create", "--name", "shown", "--memory-size", "1GiB"], table);
  assertEquals(keyValues(shown.stdout).MEMORY, "1 GiB");
});

Deno.test("enterprise database create: -d gives fields, flags override them; missing fields are exit 2 before any request", async () => {
  await using ctl = await inProcessCtl();
  const body = JSON.stringify({ name: "from-body", memory_size: 1000, replication: true });
  const r = await ctl(["enterprise", "database", "create", "-d", body, "--memory-size", "2GiB"], { env });
  assertEquals(r.code, 0, r.stderr);
  const created = JSON.parse(r.stdout);
  assertEquals([created.name, created.memory_size, created.replication], ["from-body", 2 * GIB, true]);
  const noSize = await ctl(["enterprise", "database", "create", "--name", "x"], { env });
  assertEquals([noSize.code, noSize.requests], [2, []]);
  assertMatch(noSize.stderr, /^Error: Missing --memory-size \(or "memory_size" in --data\)/);
  const none = await ctl(["enterprise", "database", "create"], { env });
  assertMatch(none.stderr, /Missing --name \(or "name" in --data\) and --memory-size/);
  const badSize = await ctl(["enterprise", "database", "create", "--name", "x", "--memory-size", "1G"], { env });
  assertEquals([badSize.code, badSize.requests], [2, []]);
  assertMatch(
    badSize.stderr,
    /--memory-size must have a unit among B, KB, MB, GB, TB .*KiB, MiB, GiB, TiB.*; got '1G'/,
  );
  const array = await ctl(["enterprise", "database", "create", "-d", "[1]"], { env });
  assertEquals([array.code, array.requests], [2, []]);
  assertMatch(array.stderr, /-d must be a JSON object; got an array/);
  const taken = await ctl(["enterprise", "database", "create", "-d", body], { env });
  assertEquals(taken.code, 7);
  assertMatch(taken.stderr, /A database named 'from-body' already exists/);
});

Deno.test("enterprise database update: --memory-size and --name; nothing to change is exit 2", async () => {
  await using ctl = await inProcessCtl();
  const r = await ctl(["enterprise", "database", "update", "1", "--memory-size", "3GiB", "--name", "renamed"], {
    env,
  });
  assertEquals([r.code, r.requests], [0, ["PUT /v1/bdbs/1"]]);
  assertEquals([JSON.parse(r.stdout).memory_size, JSON.parse(r.stdout).name], [3 * GIB, "renamed"]);
  const nothing = await ctl(["enterprise", "database", "update", "1"], { env });
  assertEquals([nothing.code, nothing.requests], [2, []]);
  assertMatch(nothing.stderr, /Nothing to change: give --name, --memory-size or -d/);
  const missing = await ctl(["enterprise", "database", "update", "42", "--name", "x"], { env });
  assertEquals(missing.code, 5);
});

Deno.test("enterprise database delete: asks on a terminal; without one needs --yes (exit 2, no request)", async () => {
  await using ctl = await inProcessCtl();
  const refused = await ctl(["enterprise", "database", "delete", "1"], { env });
  assertEquals([refused.code, refused.requests], [2, []]);
  assertEquals(
    refused.stderr,
    "Error: Delete database 1 and all its data: confirm with --yes (there is no terminal to ask on)\n",
  );
  const no = await ctl(["enterprise", "database", "delete", "1"], { env, tty: { stdin: true }, answers: [false] });
  assertEquals([no.code, no.requests], [12, []]);
  assertEquals(ctl.questions, ["Delete database 1 and all its data?"]);
  const yes = await ctl(["enterprise", "database", "delete", "1"], { env, tty: { stdin: true }, answers: [true] });
  assertEquals([yes.code, yes.requests, yes.stdout, yes.stderr], [
    0,
    ["DELETE /v1/bdbs/1"],
    "",
    "Deleted database 1\n",
  ]);
  const forced = await ctl(["enterprise", "database", "delete", "2", "--yes"], { env });
  assertEquals([forced.code, forced.requests], [0, ["DELETE /v1/bdbs/2"]]);
  const again = await ctl(["enterprise", "database", "delete", "2", "-y"], { env });
  assertEquals([again.code, again.requests], [5, ["DELETE /v1/bdbs/2"]]);
});

Deno.test("enterprise database stats: the documented route, the real metric names in every column", async () => {
  await using ctl = await inProcessCtl({ quirks: new Set(["strict-routes"]) });
  const r = await ctl(["enterprise", "database", "stats", "1"], table);
  assertEquals([r.code, r.requests], [0, ["GET /v1/bdbs/stats/last/1"]], r.stderr);
  const row = keyValues(r.stdout);
  assertEquals(Object.keys(row), [
    "INTERVAL END",
    "OPS/SEC",
    "USED MEMORY",
    "KEYS",
    "CONNECTIONS",
    "MAIN THREAD CPU",
    "SHARD CPU USER",
    "SHARD CPU SYSTEM",
  ]);
  assertEquals(Object.entries(row).filter(([, v]) => v === ""), []);
  assertMatch(row["SHARD CPU USER"], /^\d+%$/);
  assertMatch(row["USED MEMORY"], /^\d+(\.\d+)? (B|KiB|MiB|GiB)$/);
  const json = JSON.parse((await ctl(["enterprise", "database", "stats", "1"], { env })).stdout);
  assert(Number.isInteger(json.used_memory) && typeof json.shard_cpu_user === "number", JSON.stringify(json));
});

Deno.test("enterprise database stats: on a 404 from the documented route, the specification's route is tried once", async () => {
  await using ctl = await inProcessCtl();
  ctl.emulator.faults.enterprise.add({ kind: "status", status: 404 }, 1, "/v1/bdbs/stats/last/2");
  const r = await ctl(["enterprise", "database", "stats", "2", "-o", "json"], { env });
  assertEquals([r.code, r.requests], [0, ["GET /v1/bdbs/stats/last/2", "GET /v1/bdbs/2/stats/last"]], r.stderr);
  assertEquals(typeof JSON.parse(r.stdout).shard_cpu_user, "number");
  const missing = await ctl(["enterprise", "database", "stats", "99"], { env });
  assertEquals([missing.code, missing.requests], [5, ["GET /v1/bdbs/stats/last/99", "GET /v1/bdbs/99/stats/last"]]);
  assertMatch(missing.stderr, /database '99' does not exist/);
  assertMatch(missing.stderr, /tip: See the ids with: ctl enterprise database list/);
});
