import { SERVICE_SCENARIOS } from "./service_scenarios.ts";
import { DENO_SERVER } from "../testing/server_process.ts";
import { missingTools } from "../testing/tools.ts";

for (
  const scenario of SERVICE_SCENARIOS
) {
  Deno.test(
    `Deno server: ${scenario.name}`,
    { ignore: missingTools(...scenario.tools) },
    () => scenario.run(DENO_SERVER),
  );
}
