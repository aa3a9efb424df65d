import { assert, assertEquals, assertMatch } from "../../../testing/assert.ts";
import { FIXED_CERTIFICATE as PEM } from "../../../testing/certs.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../testing/ctl_in_process.ts";
import { keyValues, tableCells, tableRows } from "../../../testing/table_text.ts";

const env = EMULATOR_ENV;
const table = { env, tty: { stdout: true }, columns: 200 };

Deno.test("enterprise cluster get: a real cluster has no status or state; STATUS tells its health from nodes, databases and alerts", async () => {
  await using ctl = await inProcessCtl();
  const r = await ctl(["enterprise", "cluster", "get"], table);
  assertEquals(r.code, 0, r.stderr);
  assertEquals(Object.keys(keyValues(r.stdout)), ["NAME", "STATUS", "RACK AWARE", "EMAIL ALERTS", "CREATED"]);
  assertEquals(keyValues(r.stdout).NAME, "cluster.example.local");
  assertEquals(
    keyValues(r.stdout).STATUS,
    "healthy: 3/3 nodes active, 4/4 databases active, no active alerts",
  );
  assertEquals([...r.requests].sort(), [
    "GET /v1/bdbs",
    "GET /v1/bdbs/alerts",
    "GET /v1/cluster",
    "GET /v1/cluster/alerts",
    "GET /v1/nodes",
    "GET /v1/nodes/alerts",
  ]);
  // JSON is the cluster as the API gives it, in one request.
  const json = await ctl(["enterprise", "cluster", "get"], { env });
  assertEquals(json.requests, ["GET /v1/cluster"]);
  const cluster = JSON.parse(json.stdout);
  assertEquals(["status" in cluster, "health" in cluster, cluster.name], [false, false, "cluster.example.local"]);
  const name = await ctl(["enterprise", "cluster", "get", "-q", "name", "--raw"], { env });
  assertEquals(name.stdout, "cluster.example.local\n");
});

Deno.test("enterprise cluster get: a database still pending makes the cluster degraded", async () => {
  await using ctl = await inProcessCtl({ taskDelayMs: 600_000 });
  await ctl(["enterprise", "database", "create", "--name", "slow", "--memory-size", "1GiB"], { env });
  const r = await ctl(["enterprise", "cluster", "get"], table);
  assertEquals(
    keyValues(r.stdout).STATUS,
    "degraded: 3/3 nodes active, 4/5 databases active (5 slow: pending), no active alerts",
  );
});

Deno.test("enterprise cluster update: name and other settings; -q works", async () => {
  await using ctl = await inProcessCtl();
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

Deno.test("enterprise cluster stats: CPU as percentages, memory for people; every column filled from the real metric names", async () => {
  await using ctl = await inProcessCtl();
  const r = await ctl(["enterprise", "cluster", "stats"], table);
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
  assertMatch(row["CPU USER"], /^\d+%$/);
  assertMatch(row["FREE MEMORY"], /^\d+ GiB$/);
  assertEquals(Object.entries(row).filter(([, v]) => v === ""), []);
  const json = JSON.parse((await ctl(["enterprise", "cluster", "stats"], { env })).stdout);
  assert(typeof json.cpu_user === "number" && Number.isInteger(json.free_memory));
});

Deno.test("enterprise cluster alerts and certificates: one row per name; JSON as the API gives it", async () => {
  await using ctl = await inProcessCtl({ certificate: PEM });
  const alerts = await ctl(["enterprise", "cluster", "alerts"], table);
  assertEquals(tableCells(alerts.stdout)[0], ["ALERT", "ENABLED", "RAISED", "SEVERITY", "THRESHOLD", "CHANGED"]);
  const rows = tableRows(alerts.stdout);
  assertEquals(rows.length, 12);
  // The threshold is in change_value.global_threshold.
  assertEquals(rows.find((row) => row.ALERT === "cluster_ca_cert_about_to_expire"), {
    ALERT: "cluster_ca_cert_about_to_expire",
    ENABLED: "true",
    RAISED: "false",
    SEVERITY: "INFO",
    THRESHOLD: "90",
    CHANGED: "2026-01-01T00:00:00Z",
  });
  assertEquals(rows.find((row) => row.ALERT === "cluster_ocsp_query_failed")?.THRESHOLD, "");
  assertEquals(
    JSON.parse((await ctl(["enterprise", "cluster", "alerts"], { env })).stdout).cluster_license_about_to_expire
      .change_value.global_threshold,
    "7",
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
