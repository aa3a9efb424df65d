import { HARDENING_SCENARIOS } from "./http_hardening_scenarios.ts";
import { DENO_SERVER } from "./server_process.ts";
import { missingTools } from "./tools.ts";

for (const scenario of HARDENING_SCENARIOS) {
  Deno.test(
    `Deno server: ${scenario.name}`,
    { ignore: missingTools(...scenario.tools) },
    () => scenario.run(DENO_SERVER),
  );
}
