/**
 * `ctl` start-up and API-call cost against baselines measured in the same run:
 * `ctl --version` vs an empty `deno run`; `ctl api enterprise get /v1/bdbs -q '[].name'` vs
 * `curl -s … | jq '[.[].name]'` on the emulator. Also the Node bundle (against an empty `node`
 * run for start-up), and a command that loads the whole CLI without the network (`profile path`).
 *
 * Run: `deno task bench` (or `deno run -A bench/cli_bench.ts`). Needs curl, jq and node.
 *
 * @module
 */
import { bundleAll } from "../tools/bundle.ts";
import { startEmulator } from "../tests/emulator_process.ts";
import { compare, timeCommand } from "./measure.ts";

const root = new URL("..", import.meta.url).pathname;
const deno = Deno.execPath();
const ctl = [deno, "run", "-A", `${root}cli/main.ts`];
const env = { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "/root" };

await using emulator = await startEmulator(["--rate-limit-per-minute", "0"]);
const dir = await Deno.makeTempDir();
await bundleAll(`${dir}/dist`);
const node = [Deno.env.get("NODE") ?? "node", `${dir}/dist/ctl.mjs`];
const apiEnv = {
  ...env,
  STORE_CONFIG_FILE: `${dir}/none.toml`,
  STORE_ENTERPRISE_URL: emulator.enterpriseUrl,
  STORE_ENTERPRISE_USER: "admin@example.com",
  STORE_ENTERPRISE_PASSWORD: "demo-password",
};
const apiArgs = ["api", "enterprise", "get", "/v1/bdbs", "-q", "[].name"];

const empty = await timeCommand("deno run (empty script)", [deno, "run", `${root}bench/empty.js`], { env });
const emptyNode = await timeCommand("node (empty script)", [node[0], `${root}bench/empty.js`], { env });
const version = await timeCommand("ctl --version (Deno)", [...ctl, "--version"], { env });
const versionNode = await timeCommand("ctl --version (Node)", [...node, "--version"], { env });
const profilePath = await timeCommand("ctl profile path (Deno)", [...ctl, "profile", "path"], { env: apiEnv });
const curl = await timeCommand("curl | jq", [
  "sh",
  "-c",
  `curl -s -u admin@example.com:demo-password ${emulator.enterpriseUrl}/v1/bdbs | jq '[.[].name]'`,
], { env });
const api = await timeCommand("ctl api … -q (Deno)", [...ctl, ...apiArgs], { env: apiEnv });
const apiNode = await timeCommand("ctl api … -q (Node)", [...node, ...apiArgs], { env: apiEnv });
await Deno.remove(dir, { recursive: true });

console.log(compare(version, empty, 2.5));
console.log(compare(versionNode, emptyNode, 2.5));
console.log(compare(profilePath, empty, 2.5));
console.log(compare(api, curl, 2));
console.log(compare(apiNode, curl, 2));
