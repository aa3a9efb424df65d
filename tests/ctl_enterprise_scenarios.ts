/**
 * End-to-end scenarios of `ctl enterprise …`, added to `SCENARIOS` so that `ctl_deno_test.ts`
 * and `ctl_node_test.ts` run them on Deno and on the Node bundle. They run after the shared
 * scenarios and use their enterprise profile `e` (the default by then), pointed at an emulator
 * of their own started with `--real-api`: real shapes, and only the documented routes answer.
 *
 * @module
 */
import { assertEquals, assertMatch } from "../testing/assert.ts";
import type { Ctl } from "../testing/ctl_process.ts";
import { bashCompleter, freePortUrl, SCENARIOS, type World } from "./ctl_scenarios.ts";
import { startEmulator } from "../testing/emulator_process.ts";
import { keyValues, tableRows } from "../testing/table_text.ts";

type Result = { code: number; stdout: string; stderr: string };

/**
 * The world's ctl with profile `e` pointed (through STORE_ENTERPRISE_URL and _CA_CERT) at an
 * emulator started with `--real-api` over TLS; stop it with `await using`.
 */
async function realApi(world: World): Promise<{ ctl: Ctl } & AsyncDisposable> {
  const emulator = await startEmulator(["--tls", "--real-api", "--task-delay-ms", "200", "--debuginfo-mb", "1"]);
  const caFile = `${world.dir}/real-api-ca.pem`;
  await Deno.writeTextFile(caFile, emulator.caCert!);
  const env = { STORE_ENTERPRISE_URL: emulator.enterpriseUrl, STORE_ENTERPRISE_CA_CERT: caFile };
  return {
    ctl: (args, options = {}) => world.ctl(args, { ...options, env: { ...env, ...options.env } }),
    [Symbol.asyncDispose]: async () => void await emulator.stop(),
  };
}

function expectCode(r: Result, code: number): Result {
  assertEquals(r.code, code, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

Object.assign(SCENARIOS, {
  async "enterprise database create --memory-size 1GiB; delete without a terminal needs --yes and sends nothing"(
    world: World,
  ) {
    await using real = await realApi(world);
    const { ctl } = real;
    const created = JSON.parse(
      expectCode(await ctl(["enterprise", "database", "create", "--name", "e2e-db", "--memory-size", "1GiB"]), 0)
        .stdout,
    );
    assertEquals([created.name, created.memory_size], ["e2e-db", 1024 ** 3]);
    const uid = String(created.uid);
    const refused = expectCode(await ctl(["enterprise", "database", "delete", uid]), 2);
    assertEquals(
      refused.stderr,
      `Error: Delete database ${uid} and all its data: confirm with --yes (there is no terminal to ask on)\n`,
    );
    // Nothing was sent: the database is still there, and a cluster that is not there is never called.
    expectCode(await ctl(["enterprise", "database", "get", uid]), 0);
    const nowhere = { STORE_ENTERPRISE_URL: freePortUrl() };
    expectCode(await ctl(["enterprise", "database", "delete", uid], { env: nowhere }), 2);
    const deleted = expectCode(await ctl(["enterprise", "database", "delete", uid, "--yes"]), 0);
    assertEquals([deleted.stdout, deleted.stderr], ["", `Deleted database ${uid}\n`]);
    const gone = expectCode(await ctl(["enterprise", "database", "get", uid]), 5);
    assertMatch(gone.stderr, new RegExp(`^Error: Not found: GET /v1/bdbs/${uid}: `));
  },

  async "enterprise status names the step that fails: the credentials, or reaching the cluster"(world: World) {
    await using real = await realApi(world);
    const { ctl } = real;
    const ok = JSON.parse(expectCode(await ctl(["enterprise", "status", "-o", "json"]), 0).stdout);
    assertEquals([ok.bootstrap, ok.user, ok.health, ok.summary], [
      "completed",
      "admin@example.com",
      "healthy",
      "3/3 nodes active, 4/4 databases active, no active alerts",
    ]);
    const rejected = expectCode(
      await ctl(["enterprise", "status"], { env: { STORE_ENTERPRISE_PASSWORD: "not-it-Zq81x" } }),
      4,
    );
    assertMatch(
      rejected.stderr,
      /^Error: The cluster at https:\/\/127\.0\.0\.1:\d+ answers \(bootstrap completed, version [\d.]+\), but rejects the credentials of admin@example\.com: Authentication failed for profile 'e'/,
    );
    assertMatch(rejected.stderr, /tip: STORE_ENTERPRISE_PASSWORD is set and takes priority over the profile/);
    assertEquals(rejected.stderr.includes("Zq81x"), false);
    const url = freePortUrl();
    const unreachable = expectCode(
      await ctl(["enterprise", "status", "--retries", "0"], { env: { STORE_ENTERPRISE_URL: url } }),
      10,
    );
    assertMatch(
      unreachable.stderr,
      new RegExp(`^Error: The cluster at ${url} is not reachable \\(credentials not checked\\): Failed to connect`),
    );
  },

  async "enterprise on the real API: cluster health, endpoint ports, alert thresholds, stats of real metric names"(
    world: World,
  ) {
    await using real = await realApi(world);
    const { ctl } = real;
    const shown = async (...args: string[]) => expectCode(await ctl(["enterprise", ...args, "-o", "table"]), 0).stdout;
    const table = async (...args: string[]) => tableRows(await shown(...args));
    const one = async (...args: string[]) => keyValues(await shown(...args));
    assertEquals(
      (await one("cluster", "get")).STATUS,
      "healthy: 3/3 nodes active, 4/4 databases active, no active alerts",
    );
    assertEquals((await table("database", "list")).map((row) => row.PORT), ["12001", "12002", "12003", "12004"]);
    const alerts = await table("cluster", "alerts");
    assertEquals(alerts.find((row) => row.ALERT === "cluster_certs_about_to_expire")?.THRESHOLD, "45");
    for (const [noun, uid] of [["database", "1"], ["node", "2"], ["cluster"]]) {
      const row = await one(noun, "stats", ...(uid ? [uid] : []));
      assertEquals(Object.entries(row).filter(([, value]) => value === ""), [], `${noun} stats`);
    }
  },

  async "enterprise node remove --wait follows the documented remove action until the node is gone"(world: World) {
    await using real = await realApi(world);
    const { ctl } = real;
    const removed = expectCode(await ctl(["enterprise", "node", "remove", "3", "--yes", "--wait", "-o", "json"]), 0);
    assertEquals([JSON.parse(removed.stdout).status, removed.stderr], ["completed", "Removed node 3\n"]);
    assertEquals(JSON.parse(expectCode(await ctl(["enterprise", "node", "list", "-q", "[].uid"]), 0).stdout), [1, 2]);
    const started = expectCode(await ctl(["enterprise", "node", "remove", "2", "--yes"]), 0);
    const uid = JSON.parse(started.stdout).action_uid;
    assertEquals(
      started.stderr,
      `Removing node 2: action ${uid} is queued; follow it with: ctl enterprise action wait ${uid}\n`,
    );
    const waited = JSON.parse(expectCode(await ctl(["enterprise", "action", "wait", uid, "-o", "json"]), 0).stdout);
    assertEquals([waited.status, waited.node_uid], ["completed", "2"]);
    const last = expectCode(await ctl(["enterprise", "node", "remove", "1", "--yes", "--wait"]), 8);
    assertMatch(last.stderr, /^Error: Removing node 1 failed \(insufficient_resources\): /);
  },

  async "bash completion offers the enterprise commands, output formats and profile names"(world: World) {
    const complete = await bashCompleter(world, { STORE_CONFIG_FILE: `${world.dir}/config.toml` });
    assertEquals(await complete("enterprise", "d"), ["database"]);
    assertEquals(await complete("enterprise", "a"), ["action", "acl"]);
    assertEquals(await complete("enterprise", "node", ""), ["list", "get", "update", "remove", "stats"]);
    assertEquals(await complete("enterprise", "database", "list", "-o", ""), ["json", "yaml", "table", "auto"]);
    assertEquals(await complete("enterprise", "status", "-p", "e"), ["e"]);
    assertEquals(await complete("-p", "c"), ["c"]);
  },
});
