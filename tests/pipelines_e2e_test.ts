import { PIPELINE_SCENARIOS, twoServersScenario } from "./pipelines_scenario.ts";
import { DENO_SERVER } from "../testing/server_process.ts";
import { missingTools } from "../testing/tools.ts";

Deno.test(
  "pipelines: two server processes on one redis-server return the same search results after an ingest through one",
  { ignore: missingTools("redis-server") },
  () => twoServersScenario(DENO_SERVER),
);

for (const scenario of PIPELINE_SCENARIOS) {
  Deno.test(
    `Deno server: ${scenario.name}`,
    { ignore: missingTools(...scenario.tools) },
    () => scenario.run(DENO_SERVER),
  );
}
