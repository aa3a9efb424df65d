import { assert, assertEquals, assertMatch } from "../../../tests/assert.ts";
import { FIXED_CERTIFICATE as PEM } from "../../../tests/certs.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../tests/ctl_in_process.ts";
import { tableCells, tableRows } from "../../../tests/table_text.ts";

const env = EMULATOR_ENV;
const table = { env, tty: { stdout: true }, columns: 200 };

Deno.test("enterprise cluster get and update: name, status, state; -q works", async () => {
  await using ctl = await inProcessCtl();
  const r = await ctl(["enterprise", "cluster", "get"], table);
  assertEquals(tableCells(r.stdout)[0], ["NAME", "STATUS", "STATE", "RACK AWARE", "EMAIL ALERTS", "CREATED"]);
  assertEquals(tableRows(r.stdout)[0].NAME, "cluster.example.local");
  const state = await ctl(["enterprise", "cluster", "get", "-q", "state", "--raw"], { env });
  assertEquals(state.stdout, "active\n");
  const renamed = await ctl(["enterprise", "cluster", "update", "--name", "renamed.example"], { env });
  assertEquals([renamed.code, renamed.requests, JSON.parse(renamed.stdout).name], [
    0,
    ["PUT /v1/cluster"],
    "renamed.example",
  ]);
  const alerts = await ctl(["enterprise", "cluster", "update", "-d", '{"email_alerts":true}'], { env });
  assertEquals(JSON.parse(alerts.stdout).email_alerts, true);
  const nothing = await ctl(["enterprise", "cluster", "update"], { env });
  assertEquals([nothing.code, nothing.requests], [2, []]);
  const empty = await ctl(["enterprise", "cluster", "update", "--name", ""], { env });
  assertEquals(empty.code, 6);
});

Deno.test("enterprise cluster stats: CPU as percentages, free memory for people", async () => {
  await using ctl = await inProcessCtl();
  const r = await ctl(["enterprise", "cluster", "stats"], table);
  const [row] = tableRows(r.stdout);
  assertMatch(row["CPU USER"], /^\d+%$/);
  assertMatch(row["FREE MEMORY"], /^\d+ GiB$/);
  const json = JSON.parse((await ctl(["enterprise", "cluster", "stats"], { env })).stdout);
  assert(typeof json.cpu_user === "number" && Number.isInteger(json.free_memory));
});

Deno.test("enterprise cluster alerts and certificates: one row per name; JSON as the API gives it", async () => {
  await using ctl = await inProcessCtl({ certificate: PEM });
  const alerts = await ctl(["enterprise", "cluster", "alerts"], table);
  assertEquals(tableCells(alerts.stdout)[0], ["ALERT", "ENABLED", "RAISED", "SEVERITY", "THRESHOLD", "CHANGED"]);
  assertEquals(tableRows(alerts.stdout).map((row) => row.ALERT), ["cluster_certs_about_to_expire", "node_memory"]);
  assertEquals(
    JSON.parse((await ctl(["enterprise", "cluster", "alerts"], { env })).stdout).node_memory.threshold,
    "80",
  );
  const certs = await ctl(["enterprise", "cluster", "certificates"], table);
  assertEquals(tableCells(certs.stdout)[0], ["NAME", "SUBJECT", "EXPIRES"]);
  assertEquals(tableRows(certs.stdout), [
    { NAME: "api_cert", SUBJECT: "cluster.example.local", EXPIRES: "2036-11-20T18:53:08Z" },
    { NAME: "cm_cert", SUBJECT: "cluster.example.local", EXPIRES: "2036-11-20T18:53:08Z" },
    { NAME: "proxy_cert", SUBJECT: "cluster.example.local", EXPIRES: "2036-11-20T18:53:08Z" },
  ]);
  const pem = await ctl(["enterprise", "cluster", "certificates", "-q", "proxy_cert", "--raw"], { env });
  assertEquals(pem.stdout, `${PEM}\n`);
});

Deno.test("enterprise cluster certificates: none is said on stderr", async () => {
  await using ctl = await inProcessCtl();
  const r = await ctl(["enterprise", "cluster", "certificates"], table);
  assertEquals([r.code, r.stdout, r.stderr], [0, "", "No certificates\n"]);
});
