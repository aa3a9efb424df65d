import { TASK_SCENARIOS } from "./task_scenarios.ts";
import { STREAM_FAULT_SCENARIOS } from "./stream_fault_scenarios.ts";
import { A2A_SCENARIOS } from "./a2a_scenarios.ts";
import { WEBHOOK_SCENARIOS } from "./webhook_scenarios.ts";
import { MCP_SCENARIOS } from "./mcp_scenarios.ts";
import { DENO_SERVER } from "../testing/server_process.ts";
import { missingTools } from "../testing/tools.ts";

for (
  const scenario of [
    ...TASK_SCENARIOS,
    ...STREAM_FAULT_SCENARIOS,
    ...A2A_SCENARIOS,
    ...WEBHOOK_SCENARIOS,
    ...MCP_SCENARIOS,
  ]
) {
  Deno.test(
    `Deno server: ${scenario.name}`,
    { ignore: missingTools(...scenario.tools) },
    () => scenario.run(DENO_SERVER),
  );
}
