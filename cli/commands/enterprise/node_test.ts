import { assert, assertEquals, assertMatch } from "../../../testing/assert.ts";
import { Interrupted } from "../../context.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../testing/ctl_in_process.ts";
import { keyValues, tableCells, tableRows } from "../../../testing/table_text.ts";

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
    SHARDS: "1",
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

Deno.test("enterprise node remove: asks first; starts the documented remove action and says how to follow it", async () => {
  await using ctl = await inProcessCtl({ taskDelayMs: 600_000 });
  const refused = await ctl(["enterprise", "node", "remove", "3"], { env });
  assertEquals([refused.code, refused.requests], [2, []]);
  assertMatch(refused.stderr, /^Error: Remove node 3 from the cluster: confirm with --yes/);
  const asked = await ctl(["enterprise", "node", "remove", "3"], { env, tty: { stdin: true }, answers: [true] });
  assertEquals([asked.code, asked.requests], [0, ["POST /v1/nodes/3/actions/remove"]], asked.stderr);
  assertEquals(ctl.questions, ["Remove node 3 from the cluster?"]);
  const action = JSON.parse(asked.stdout);
  assertEquals([action.name, action.status, action.node_uid], ["remove_node", "queued", "3"]);
  assertEquals(
    asked.stderr,
    `Removing node 3: action ${action.action_uid} is queued; follow it with: ctl enterprise action wait ${action.action_uid}\n`,
  );
  const again = await ctl(["enterprise", "node", "remove", "3", "--yes"], { env });
  assertEquals(again.code, 7);
  const missing = await ctl(["enterprise", "node", "remove", "9", "--yes"], { env });
  assertEquals(missing.code, 5);
  assertMatch(missing.stderr, /tip: See the ids with: ctl enterprise node list/);
});

Deno.test("enterprise node remove --wait: polls the action until the node is gone", async () => {
  await using ctl = await inProcessCtl();
  const r = await ctl(["enterprise", "node", "remove", "3", "--yes", "--wait", "-o", "json"], { env });
  assertEquals(r.code, 0, r.stderr);
  const uid = JSON.parse(r.stdout).action_uid;
  assertEquals(r.requests, ["POST /v1/nodes/3/actions/remove", `GET /v1/actions/${uid}`]);
  assertEquals(JSON.parse(r.stdout).status, "completed");
  assertEquals(r.stderr, "Removed node 3\n");
  assertEquals((await ctl(["enterprise", "node", "get", "3"], { env })).code, 5);
});

Deno.test("enterprise node remove --wait: a failed action is exit 8 with the cluster's error", async () => {
  await using ctl = await inProcessCtl();
  for (const uid of ["3", "2"]) {
    assertEquals((await ctl(["enterprise", "node", "remove", uid, "--yes", "--wait"], { env })).code, 0);
  }
  const last = await ctl(["enterprise", "node", "remove", "1", "--yes", "--wait"], { env });
  assertEquals(last.code, 8);
  assertMatch(
    last.stderr,
    /^Error: Removing node 1 failed \(insufficient_resources\): Cannot remove node 1: it is the last node of the cluster/,
  );
});

Deno.test("enterprise node remove --wait: --wait-timeout is exit 11; Ctrl+C stops waiting, not the removal", async () => {
  await using ctl = await inProcessCtl({ taskDelayMs: 600_000 });
  const slow = await ctl(["enterprise", "node", "remove", "3", "--yes", "--wait", "--wait-timeout", "1"], { env });
  assertEquals(slow.code, 11, slow.stderr);
  const uid = (await ctl(["enterprise", "action", "list", "-q", "actions[0].action_uid", "--raw"], { env })).stdout
    .trim();
  assertMatch(
    slow.stderr,
    new RegExp(
      `^Error: The removal of node 3 did not finish within 1 s \\(last status: (queued|running), \\d+%\\)\n  tip: It goes on in the cluster; follow it with: ctl enterprise action wait ${uid}`,
    ),
  );
  const interrupt = new AbortController();
  interrupt.abort(new Interrupted({ name: "SIGINT", number: 2 }));
  const stopped = await ctl(["enterprise", "node", "remove", "2", "--yes", "--wait"], {
    env,
    interrupt: interrupt.signal,
  });
  assertEquals(stopped.code, 130);
  assertMatch(
    stopped.stderr,
    /^Interrupted \(SIGINT\): the removal of node 2 goes on in the cluster; follow it with: ctl enterprise action wait /,
  );
  const running = JSON.parse((await ctl(["enterprise", "action", "list", "-o", "json"], { env })).stdout);
  assertEquals(running.actions.map((a: { node_uid: string }) => a.node_uid), ["3", "2"]);
});

Deno.test("enterprise node remove --wait: progress on a terminal, nothing when stderr is piped", async () => {
  await using ctl = await inProcessCtl();
  const tty = await ctl(["enterprise", "node", "remove", "3", "--yes", "--wait"], {
    env,
    tty: { stderr: true, stdout: true },
    columns: 120,
  });
  assertEquals(tty.code, 0, tty.stderr);
  assertMatch(tty.stderr, /Removing node 3: (queued|running|completed)/);
  assertMatch(tty.stderr, /Removed node 3\n$/);
});

Deno.test("enterprise node stats: the documented route; the host's metrics in every column", async () => {
  await using ctl = await inProcessCtl({ quirks: new Set(["strict-routes"]) });
  const r = await ctl(["enterprise", "node", "stats", "2"], table);
  assertEquals([r.code, r.requests], [0, ["GET /v1/nodes/stats/last/2"]], r.stderr);
  assertEquals(Object.keys(keyValues(r.stdout)), [
    "INTERVAL END",
    "CPU USER",
    "CPU SYSTEM",
    "FREE MEMORY",
    "AVAILABLE MEMORY",
    "CONNECTIONS",
    "REQUESTS",
  ]);
  const row = keyValues(r.stdout);
  assertEquals(Object.entries(row).filter(([, v]) => v === ""), []);
  assertMatch(row["FREE MEMORY"], /^\d+ GiB$/);
  const json = JSON.parse((await ctl(["enterprise", "node", "stats", "2"], { env })).stdout);
  assert(json.conns > 0 && !("2" in json), JSON.stringify(json));
});
