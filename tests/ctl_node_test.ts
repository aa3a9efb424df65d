import { bundleAll } from "../tools/bundle.ts";
import { assert, assertEquals } from "../testing/assert.ts";
import { ctlRunner, ctlSpawner } from "../testing/ctl_process.ts";
import { SCENARIOS } from "./ctl_scenarios.ts";
import { CLOUD_SCENARIOS } from "./ctl_cloud_scenarios.ts";
import { MCP_SCENARIOS } from "./ctl_mcp_scenarios.ts";
import "./ctl_enterprise_scenarios.ts";
import "./ctl_support_package_scenarios.ts";
import "./ctl_optimize_scenarios.ts";
import { startEmulator } from "../testing/emulator_process.ts";
import { missingTools, requireTool } from "../testing/tools.ts";

Deno.test("ctl on Node (the bundle) against the emulator", { ignore: missingTools("node") }, async (t) => {
  const node = requireTool("node");
  await using emulator = await startEmulator(["--tls", "--real-api", "--task-delay-ms", "200", "--debuginfo-mb", "1"]);
  const dir = await Deno.makeTempDir();
  const caFile = `${dir}/emulator-ca.pem`;
  await Deno.writeTextFile(caFile, emulator.caCert!);
  try {
    await bundleAll(`${dir}/dist`);
    const command = [node, `${dir}/dist/ctl.cjs`];
    const world = { ctl: ctlRunner(dir, command), spawn: ctlSpawner(dir, command), command, emulator, dir, caFile };
    for (const [name, scenario] of Object.entries({ ...SCENARIOS, ...CLOUD_SCENARIOS, ...MCP_SCENARIOS })) {
      await t.step(name, () => scenario(world));
    }
    const lib = `${dir}/dist/lib`;
    const caches = async () =>
      (await Array.fromAsync(Deno.readDir(lib))).map((entry) => entry.name).filter((name) => name.endsWith(".cache"))
        .sort();
    await t.step("the code cache: one per command word, written by a run that succeeds", async () => {
      const written = await caches();
      for (const word of ["_", "api", "profile"]) assert(written.includes(`ctl.cjs.${word}.cache`), word);
      await Deno.remove(`${lib}/ctl.cjs.profile.cache`);
      assertEquals((await world.ctl(["profile", "nope"])).code, 2);
      assertEquals((await world.ctl(["nope"])).code, 2);
      assertEquals(await caches(), written.filter((name) => name !== "ctl.cjs.profile.cache"));
    });
    await t.step("the code cache: kept while V8 accepts it, replaced when it does not", async () => {
      const cache = `${lib}/ctl.cjs._.cache`;
      const written = await Deno.readFile(cache);
      assertEquals((await world.ctl(["--help"])).code, 0);
      assertEquals(await Deno.readFile(cache), written);

      await Deno.writeTextFile(cache, "not a V8 code cache");
      assertEquals((await world.ctl(["--help"])).code, 0);
      assert((await Deno.stat(cache)).size > 1000, "a rejected cache is written again");
    });
    await t.step("the code cache: ctl runs the same where it cannot be written, and leaves no file", async () => {
      await Deno.mkdir(`${lib}/ctl.cjs.profile.cache/in-the-way`, { recursive: true });
      const names = async () => (await Array.fromAsync(Deno.readDir(lib))).map((entry) => entry.name).sort();
      const before = await names();
      const result = await world.ctl(["profile", "list", "-o", "json"]);
      assertEquals([result.code, result.stderr], [0, ""]);
      assertEquals(await names(), before);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
