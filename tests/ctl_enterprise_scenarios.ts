/**
 * End-to-end scenarios of `ctl enterprise …` against the emulator, added to `SCENARIOS` so that
 * `ctl_deno_test.ts` and `ctl_node_test.ts` run them on Deno and on the Node bundle. They run
 * after the shared scenarios and use their enterprise profile `e` (the default by then).
 *
 * @module
 */
import { assertEquals, assertMatch } from "./assert.ts";
import { bashCompleter, freePortUrl, SCENARIOS, type World } from "./ctl_scenarios.ts";

type Result = { code: number; stdout: string; stderr: string };

function expectCode(r: Result, code: number): Result {
  assertEquals(r.code, code, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

Object.assign(SCENARIOS, {
  async "enterprise database create --memory-size 1GiB; delete without a terminal needs --yes and sends nothing"(
    { ctl }: World,
  ) {
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

  async "enterprise status names the step that fails: the credentials, or reaching the cluster"({ ctl }: World) {
    const ok = JSON.parse(expectCode(await ctl(["enterprise", "status", "-o", "json"]), 0).stdout);
    assertEquals([ok.bootstrap, ok.user, ok.cluster_status], ["completed", "admin@example.com", "active"]);
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

  async "bash completion offers the enterprise commands, output formats and profile names"(world: World) {
    const complete = await bashCompleter(world, { STORE_CONFIG_FILE: `${world.dir}/config.toml` });
    assertEquals(await complete("enterprise", "d"), ["database"]);
    assertEquals(await complete("enterprise", "node", ""), ["list", "get", "update", "remove", "stats"]);
    assertEquals(await complete("enterprise", "database", "list", "-o", ""), ["json", "yaml", "table", "auto"]);
    assertEquals(await complete("enterprise", "status", "-p", "e"), ["e"]);
    assertEquals(await complete("-p", "c"), ["c"]);
  },
});
