import { twoServersScenario } from "./pipelines_scenario.ts";
import { SEARCH_SCENARIOS } from "./search_scenarios.ts";
import { DENO_SERVER } from "./server_process.ts";
import { missingTools } from "./tools.ts";

Deno.test(
  "pipelines: two server processes on one redis-server return the same search results after an ingest through one",
  { ignore: missingTools("redis-server") },
  () => twoServersScenario(DENO_SERVER),
);

for (const scenario of SEARCH_SCENARIOS) {
  Deno.test(
    `Deno server: ${scenario.name}`,
    { ignore: missingTools(...scenario.tools) },
    () => scenario.run(DENO_SERVER),
  );
}
