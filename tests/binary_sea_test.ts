import { buildSea, SEA_NAME } from "../tools/sea.ts";
import { assertEquals, assertMatch } from "../testing/assert.ts";
import { standalone, standaloneChecks } from "./binary_checks.ts";
import { missingTools } from "../testing/tools.ts";

const ROOT = new URL("..", import.meta.url).pathname;

Deno.test(
  "Node single executable (npm run build:binary): ctl runs alone from an empty folder, offline",
  { ignore: missingTools("node") },
  async (t) => {
    const dir = await Deno.makeTempDir();
    try {
      const built = await buildSea(`${dir}/dist`);
      assertEquals(built, `${dir}/dist/${SEA_NAME}`);
      const ctl = await standalone(built, `${dir}/alone`);
      await standaloneChecks(t, ctl, "absent");

      await t.step("with @napi-rs/keyring in a node_modules beside it, a keyring: value loads the addon", async () => {
        const addon = `${ROOT}node_modules/@napi-rs`;
        const installed = await Deno.stat(`${addon}/keyring/package.json`).then(() => true, () => false);
        if (!installed) throw new Error(`${addon}/keyring is missing: run npm ci (it is an optional dependency)`);
        await Deno.mkdir(`${dir}/alone/bin/node_modules`);
        await Deno.symlink(addon, `${dir}/alone/bin/node_modules/@napi-rs`);
        const config = `${dir}/alone/keyring.toml`; // written by standaloneChecks
        const r = await ctl.run(["api", "cloud", "get", "/regions"], { STORE_CONFIG_FILE: config });
        assertEquals(r.code, 3, r.stderr);
        assertMatch(r.stderr, /keyring entry 'storectl-test-missing', which does not exist/);
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);
