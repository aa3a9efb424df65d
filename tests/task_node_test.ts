import { bundleAll } from "../tools/bundle.ts";
import { TASK_SCENARIOS } from "./task_scenarios.ts";
import { STREAM_FAULT_SCENARIOS } from "./stream_fault_scenarios.ts";
import { A2A_SCENARIOS } from "./a2a_scenarios.ts";
import { WEBHOOK_SCENARIOS } from "./webhook_scenarios.ts";
import { MCP_SCENARIOS } from "./mcp_scenarios.ts";
import { missingTools } from "../testing/tools.ts";

Deno.test("Node bundle: the task and stream scenarios, the streams' store faults, A2A and webhooks", {
  ignore: missingTools("node", "redis-server", "redis-cli", "curl"),
}, async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    await bundleAll(dir);
    for (
      const scenario of [
        ...TASK_SCENARIOS,
        ...STREAM_FAULT_SCENARIOS,
        ...A2A_SCENARIOS,
        ...WEBHOOK_SCENARIOS,
        ...MCP_SCENARIOS,
      ]
    ) {
      await t.step(scenario.name, () => scenario.run([`${dir}/server.mjs`]));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
