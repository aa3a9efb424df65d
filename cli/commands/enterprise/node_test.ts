import { assert, assertEquals, assertMatch } from "../../../tests/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../tests/ctl_in_process.ts";
import { tableCells, tableRows } from "../../../tests/table_text.ts";

const env = EMULATOR_ENV;
const table = { env, tty: { stdout: true }, columns: 200 };

Deno.test("enterprise node list and get: uid, address, status, version, memory for people", async () => {
  await using ctl = await inProcessCtl({ softwareVersion: "7.4.2" });
  const r = await ctl(["enterprise", "node", "list"], table);
  assertEquals(tableCells(r.stdout)[0], ["UID", "ADDRESS", "STATUS", "VERSION", "SHARDS", "MEMORY", "CORES", "RACK"]);
  assertEquals(tableRows(r.stdout)[1], {
    UID: "2",
    ADDRESS: "10.0.0.2",
    STATUS: "active",
    VERSION: "7.4.2",
    SHARDS: "0",
    MEMORY: "16 GiB",
    CORES: "4",
    RACK: "rack-2",
  });
  const one = await ctl(["enterprise", "node", "get", "3", "-o", "json"], { env });
  assertEquals([JSON.parse(one.stdout).uid, JSON.parse(one.stdout).total_memory], [3, 16 * 1024 ** 3]);
  const missing = await ctl(["enterprise", "node", "get", "9"], { env });
  assertEquals([missing.code, missing.requests.length], [5, 1]);
  assertMatch(missing.stderr, /node '9' does not exist\n {2}tip: See the ids with: ctl enterprise node list/);
  const bad = await ctl(["enterprise", "node", "get", "first"], { env });
  assertEquals([bad.code, bad.requests], [2, []]);
});

Deno.test("enterprise node update: --accept-servers and --rack-id; a bad boolean is exit 2", async () => {
  await using ctl = await inProcessCtl();
  const r = await ctl(["enterprise", "node", "update", "2", "--accept-servers", "false", "--rack-id", "rack-b"], {
    env,
  });
  assertEquals([r.code, r.requests], [0, ["PUT /v1/nodes/2"]], r.stderr);
  const node = JSON.parse(r.stdout);
  assertEquals([node.accept_servers, node.rack_id], [false, "rack-b"]);
  const bad = await ctl(["enterprise", "node", "update", "2", "--accept-servers", "no"], { env });
  assertEquals([bad.code, bad.requests], [2, []]);
  assertMatch(bad.stderr, /--accept-servers must be true or false; got 'no'/);
  const nothing = await ctl(["enterprise", "node", "update", "2"], { env });
  assertEquals([nothing.code, nothing.requests], [2, []]);
  const readOnly = await ctl(["enterprise", "node", "update", "2", "-d", '{"status":"down"}'], { env });
  assertEquals(readOnly.code, 6);
  assertMatch(readOnly.stderr, /Unknown or read-only field 'status'/);
});

Deno.test("enterprise node remove: asks on a terminal, needs --yes without one; the last node is a conflict", async () => {
  await using ctl = await inProcessCtl();
  const refused = await ctl(["enterprise", "node", "remove", "3"], { env });
  assertEquals([refused.code, refused.requests], [2, []]);
  assertMatch(refused.stderr, /^Error: Remove node 3 from the cluster: confirm with --yes/);
  const asked = await ctl(["enterprise", "node", "remove", "3"], { env, tty: { stdin: true }, answers: [true] });
  assertEquals([asked.code, asked.requests, asked.stderr], [0, ["DELETE /v1/nodes/3"], "Removed node 3\n"]);
  assertEquals(ctl.questions, ["Remove node 3 from the cluster?"]);
  assertEquals((await ctl(["enterprise", "node", "remove", "2", "--yes"], { env })).code, 0);
  const last = await ctl(["enterprise", "node", "remove", "1", "--yes"], { env });
  assertEquals(last.code, 7);
  assertMatch(last.stderr, /Cannot remove the last node of the cluster/);
});

Deno.test("enterprise node stats: the node's last interval", async () => {
  await using ctl = await inProcessCtl();
  const r = await ctl(["enterprise", "node", "stats", "2"], table);
  assertEquals(tableCells(r.stdout)[0], [
    "INTERVAL END",
    "CPU USER",
    "CPU SYSTEM",
    "FREE MEMORY",
    "CONNECTIONS",
    "REQUESTS",
  ]);
  assertMatch(tableRows(r.stdout)[0]["FREE MEMORY"], /^\d+ GiB$/);
  const json = JSON.parse((await ctl(["enterprise", "node", "stats", "2"], { env })).stdout);
  assert(json.conns > 0 && !("2" in json), JSON.stringify(json));
});
