import { bundleAll } from "../tools/bundle.ts";
import { AUTH_SCENARIOS } from "./auth_scenarios.ts";
import { DENO_SERVER } from "../testing/server_process.ts";
import { missingTools } from "../testing/tools.ts";

Deno.test("access control on a Deno server process", { ignore: missingTools("redis-server") }, async (t) => {
  for (const scenario of AUTH_SCENARIOS) await t.step(scenario.name, () => scenario.run(DENO_SERVER));
});

Deno.test("access control on the Node bundle", { ignore: missingTools("node", "redis-server") }, async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    await bundleAll(dir);
    for (const scenario of AUTH_SCENARIOS) await t.step(scenario.name, () => scenario.run([`${dir}/server.mjs`]));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
