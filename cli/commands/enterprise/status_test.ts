import { assertEquals, assertMatch } from "../../../tests/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../tests/ctl_in_process.ts";
import { tableCells, tableRows } from "../../../tests/table_text.ts";

const env = EMULATOR_ENV;

Deno.test("enterprise status: bootstrap, then the credentials; both pass", async () => {
  await using ctl = await inProcessCtl({ softwareVersion: "7.4.2" });
  const r = await ctl(["enterprise", "status"], { env, tty: { stdout: true }, columns: 200 });
  assertEquals([r.code, r.requests], [0, ["GET /v1/bootstrap", "GET /v1/cluster"]], r.stderr);
  assertEquals(tableCells(r.stdout)[0], ["URL", "BOOTSTRAP", "VERSION", "USER", "CLUSTER", "STATUS"]);
  assertEquals(tableRows(r.stdout)[0], {
    URL: "https://cluster.test:9443",
    BOOTSTRAP: "completed",
    VERSION: "7.4.2",
    USER: "admin@example.com",
    CLUSTER: "cluster.example.local",
    STATUS: "active",
  });
  const json = JSON.parse((await ctl(["enterprise", "status"], { env })).stdout);
  assertEquals([json.bootstrap, json.cluster_state], ["completed", "active"]);
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
