import { bundleAll } from "../tools/bundle.ts";
import { HARDENING_SCENARIOS } from "./http_hardening_scenarios.ts";
import { missingTools } from "./tools.ts";

Deno.test("Node bundle: the service's HTTP hardening", {
  ignore: missingTools("node", ...new Set(HARDENING_SCENARIOS.flatMap((s) => s.tools))),
}, async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    await bundleAll(dir);
    for (const scenario of HARDENING_SCENARIOS) {
      await t.step(scenario.name, () => scenario.run([`${dir}/server.mjs`]));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
