import { bundleAll } from "../tools/bundle.ts";
import { ctlRunner, ctlSpawner } from "./ctl_process.ts";
import { SCENARIOS } from "./ctl_scenarios.ts";
import { startEmulator } from "./emulator_process.ts";
import { missingTools, requireTool } from "./tools.ts";

Deno.test("ctl on Node (the bundle) against the emulator", { ignore: missingTools("node") }, async (t) => {
  const node = requireTool("node");
  await using emulator = await startEmulator(["--tls", "--task-delay-ms", "200", "--debuginfo-mb", "1"]);
  const dir = await Deno.makeTempDir();
  const caFile = `${dir}/emulator-ca.pem`;
  await Deno.writeTextFile(caFile, emulator.caCert!);
  try {
    await bundleAll(`${dir}/dist`);
    const command = [node, `${dir}/dist/ctl.mjs`];
    const world = { ctl: ctlRunner(dir, command), spawn: ctlSpawner(dir, command), command, emulator, dir, caFile };
    for (const [name, scenario] of Object.entries(SCENARIOS)) await t.step(name, () => scenario(world));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
