import { bundleAll } from "../tools/bundle.ts";
import { EDGE_SCENARIOS } from "./service_edge_scenarios.ts";
import { missingTools } from "./tools.ts";

Deno.test("Node bundle: the service's edge scenarios", {
  ignore: missingTools("node", "redis-server", "curl"),
}, async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    await bundleAll(dir);
    for (const scenario of EDGE_SCENARIOS) {
      await t.step(scenario.name, () => scenario.run([`${dir}/server.mjs`]));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
