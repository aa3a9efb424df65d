/**
 * Every scenario run against server processes, on Deno (`task_e2e_test.ts`) and on the Node
 * bundle (`task_node_test.ts`) alike.
 *
 * @module
 */
import { TASK_SCENARIOS, type TaskScenario } from "./task_scenarios.ts";
import { STREAM_FAULT_SCENARIOS } from "./stream_fault_scenarios.ts";
import { A2A_SCENARIOS } from "./a2a_scenarios.ts";
import { WEBHOOK_SCENARIOS } from "./webhook_scenarios.ts";
import { MCP_SCENARIOS } from "./mcp_scenarios.ts";
import { TRACING_SCENARIOS } from "./tracing_scenarios.ts";
import { DRAIN_SCENARIOS } from "./drain_scenarios.ts";

export const SERVICE_SCENARIOS: readonly TaskScenario[] = [
  ...TASK_SCENARIOS,
  ...STREAM_FAULT_SCENARIOS,
  ...A2A_SCENARIOS,
  ...WEBHOOK_SCENARIOS,
  ...MCP_SCENARIOS,
  ...TRACING_SCENARIOS,
  ...DRAIN_SCENARIOS,
];
