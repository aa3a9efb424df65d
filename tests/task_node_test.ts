import { bundleAll } from "../tools/bundle.ts";
import { SERVICE_SCENARIOS } from "./service_scenarios.ts";
import { missingTools } from "../testing/tools.ts";

Deno.test("Node bundle: the task and stream scenarios, the streams' store faults, A2A and webhooks", {
  ignore: missingTools("node", "redis-server", "redis-cli", "curl"),
}, async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    await bundleAll(dir);
    for (
      const scenario of SERVICE_SCENARIOS
    ) {
      await t.step(scenario.name, () => scenario.run([`${dir}/server.mjs`]));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
