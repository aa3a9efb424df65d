import { assertEquals, assertMatch } from "../../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../testing/ctl_in_process.ts";
import { keyValues } from "../../../testing/table_text.ts";

const env = EMULATOR_ENV;

Deno.test("enterprise status: bootstrap, then the credentials, then the health from nodes, databases and alerts", async () => {
  await using ctl = await inProcessCtl({ softwareVersion: "7.4.2" });
  const r = await ctl(["enterprise", "status"], { env, tty: { stdout: true }, columns: 200 });
  assertEquals(r.code, 0, r.stderr);
  assertEquals(r.requests.slice(0, 2), ["GET /v1/bootstrap", "GET /v1/cluster"]);
  assertEquals([...r.requests.slice(2)].sort(), [
    "GET /v1/bdbs",
    "GET /v1/bdbs/alerts",
    "GET /v1/cluster/alerts",
    "GET /v1/nodes",
    "GET /v1/nodes/alerts",
  ]);
  assertEquals(Object.keys(keyValues(r.stdout)), ["CLUSTER", "HEALTH", "VERSION", "USER", "URL", "BOOTSTRAP"]);
  assertEquals(keyValues(r.stdout), {
    CLUSTER: "cluster.example.local",
    HEALTH: "healthy: 3/3 nodes active, 4/4 databases active, no active alerts",
    VERSION: "7.4.2",
    USER: "admin@example.com",
    URL: "https://cluster.test:9443",
    BOOTSTRAP: "completed",
  });
  const json = JSON.parse((await ctl(["enterprise", "status"], { env })).stdout);
  assertEquals(json, {
    url: "https://cluster.test:9443",
    bootstrap: "completed",
    software_version: "7.4.2",
    user: "admin@example.com",
    cluster: "cluster.example.local",
    health: "healthy",
    summary: "3/3 nodes active, 4/4 databases active, no active alerts",
    nodes: { total: 3, active: 3 },
    databases: { total: 4, active: 4 },
    alerts: [],
  });
});

Deno.test("enterprise status: a health part that cannot be read is unknown, with a warning; the exit code stays 0", async () => {
  await using ctl = await inProcessCtl();
  ctl.emulator.faults.enterprise.add({ kind: "status", status: 403 }, 1, "/v1/nodes/alerts");
  const r = await ctl(["enterprise", "status", "-o", "json"], { env });
  assertEquals(r.code, 0, r.stderr);
  const json = JSON.parse(r.stdout);
  assertEquals([json.health, json.summary], ["unknown", "3/3 nodes active, 4/4 databases active, alerts unknown"]);
  assertMatch(r.stderr, /Warning: could not read the nodes' alerts \(GET \/v1\/nodes\/alerts\): /);
});

Deno.test("enterprise status: wrong credentials say the cluster answers but rejects them (exit 4)", async () => {
  await using ctl = await inProcessCtl();
  const r = await ctl(["enterprise", "status"], { env: { ...env, STORE_ENTERPRISE_PASSWORD: "not-the-pw-Zq81x" } });
  assertEquals([r.code, r.requests], [4, ["GET /v1/bootstrap", "GET /v1/cluster"]]);
  assertMatch(
    r.stderr,
    /^Error: The cluster at https:\/\/cluster\.test:9443 answers \(bootstrap completed, version 7\.2\.4\), but rejects the credentials of admin@example\.com: Authentication failed for environment \(user admin@example\.com\)/,
  );
  assertMatch(r.stderr, /tip: STORE_ENTERPRISE_USER and STORE_ENTERPRISE_PASSWORD are set/);
  assertEquals(r.stderr.includes("Zq81x"), false);
});

Deno.test("enterprise status: a bootstrap that fails is named, and the credentials are not checked", async () => {
  await using ctl = await inProcessCtl();
  ctl.emulator.faults.enterprise.add({ kind: "status", status: 404 }, 1, "/v1/bootstrap");
  const r = await ctl(["enterprise", "status"], { env });
  assertEquals([r.code, r.requests], [5, ["GET /v1/bootstrap"]]);
  assertMatch(
    r.stderr,
    /^Error: https:\/\/cluster\.test:9443 answered GET \/v1\/bootstrap with an error, so it may not be a cluster's API \(credentials not checked\): Not found/,
  );
  assertMatch(r.stderr, /tip: A cluster's API listens on https:\/\/<host>:9443 by default/);
});
