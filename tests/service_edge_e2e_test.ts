import { EDGE_SCENARIOS } from "./service_edge_scenarios.ts";
import { DENO_SERVER } from "./server_process.ts";
import { missingTools } from "./tools.ts";

for (const scenario of EDGE_SCENARIOS) {
  Deno.test(
    `Deno server: ${scenario.name}`,
    { ignore: missingTools(...scenario.tools) },
    () => scenario.run(DENO_SERVER),
  );
}
