import { ctlRunner, ctlSpawner, DENO_CTL } from "../testing/ctl_process.ts";
import { SCENARIOS } from "./ctl_scenarios.ts";
import { CLOUD_SCENARIOS } from "./ctl_cloud_scenarios.ts";
import { MCP_SCENARIOS } from "./ctl_mcp_scenarios.ts";
import "./ctl_enterprise_scenarios.ts";
import "./ctl_support_package_scenarios.ts";
import "./ctl_optimize_scenarios.ts";
import { startEmulator } from "../testing/emulator_process.ts";

Deno.test("ctl on Deno against the emulator (cloud over HTTP, enterprise over TLS)", async (t) => {
  await using emulator = await startEmulator(["--tls", "--real-api", "--task-delay-ms", "200", "--debuginfo-mb", "1"]);
  const dir = await Deno.makeTempDir();
  const caFile = `${dir}/emulator-ca.pem`;
  await Deno.writeTextFile(caFile, emulator.caCert!);
  try {
    const world = { ctl: ctlRunner(dir), spawn: ctlSpawner(dir), command: DENO_CTL, emulator, dir, caFile };
    for (const [name, scenario] of Object.entries({ ...SCENARIOS, ...CLOUD_SCENARIOS, ...MCP_SCENARIOS })) {
      await t.step(name, () => scenario(world));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
