/**
 * `deno task compile` for this machine's target, run alone from an empty folder. `deno compile`
 * needs Deno's runtime build for the target (`DENORT_BIN`, a copy it downloaded before, or the
 * network): where it has none, this test is registered as ignored, and its reason goes where
 * `tools/run_tests.ts` collects them (`STORE_TEST_SKIPS`) to print above its summary line. The
 * permissions baked in are tested offline by `binary_permissions_test.ts`.
 *
 * @module
 */
import { binaryName, compileCtl, hostTarget, whyNoRuntimeBuild } from "../tools/compile.ts";
import { assert, assertEquals } from "../testing/assert.ts";
import { standalone, standaloneChecks } from "./binary_checks.ts";
import { ctlRunner, ctlSpawner } from "../testing/ctl_process.ts";
import { SCENARIOS } from "./ctl_scenarios.ts";
import { CLOUD_SCENARIOS } from "./ctl_cloud_scenarios.ts";
import "./ctl_enterprise_scenarios.ts";
import "./ctl_support_package_scenarios.ts";
import { startEmulator } from "../testing/emulator_process.ts";

const target = hostTarget();
const whyNot = target ? await whyNoRuntimeBuild(target) : `this machine (${Deno.build.target}) is not a target`;
// tools/run_tests.ts lists the reasons of skipped tests above its summary line.
const skips = Deno.env.get("STORE_TEST_SKIPS");
if (whyNot && skips) await Deno.writeTextFile(skips, `deno compile test not run: ${whyNot}\n`, { append: true });

Deno.test({
  name: "deno compile (deno task compile): ctl for this machine runs alone from an empty folder",
  ignore: whyNot !== undefined,
  async fn(t) {
    const dir = await Deno.makeTempDir();
    try {
      const built = await compileCtl(target!, `${dir}/dist`);
      assertEquals(built, `${dir}/dist/${binaryName(target!)}`);
      const size = (await Deno.stat(built)).size;
      console.log(`${built}: ${(size / 1e6).toFixed(1)} MB`);
      assert(size > 20e6, "the runtime is inside");
      const ctl = await standalone(built, `${dir}/alone`);
      await standaloneChecks(t, ctl, "bundled");

      await t.step("every ctl scenario", async (t) => {
        await using emulator = await startEmulator([
          "--tls",
          "--real-api",
          "--task-delay-ms",
          "200",
          "--debuginfo-mb",
          "1",
        ]);
        const caFile = `${dir}/emulator-ca.pem`;
        await Deno.writeTextFile(caFile, emulator.caCert!);
        const command = [ctl.binary];
        const world = { ctl: ctlRunner(dir, command), spawn: ctlSpawner(dir, command), command, emulator, dir, caFile };
        for (const [name, scenario] of Object.entries({ ...SCENARIOS, ...CLOUD_SCENARIOS })) {
          await t.step(name, () => scenario(world));
        }
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
