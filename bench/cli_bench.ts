/**
 * `ctl`'s start-up and API-call cost against baselines, each pair run interleaved in the same
 * run on the emulator (plain HTTP):
 *
 * - `ctl api enterprise get /v1/bdbs -q '[].name'` on Deno vs `curl -s … | jq '[.[].name]'`
 *   (target ≤ 2.2×) and vs the floor script `bench/floor.ts` (fetch + parse + JMESPath, ≤ 1.5×);
 * - the same command on the Node bundle vs curl | jq (≤ 2.7×);
 * - `ctl --help` on Deno vs an empty `deno run` (≤ 1.5×).
 *
 * `NODE_EXTRA_CA_CERTS` is unset for every command: it adds 50–110 ms to any `node` start here.
 * Prints the CPU the benchmark process used beside what the commands used.
 *
 * Run: `deno task bench` (or `deno run -A bench/cli_bench.ts`). Needs curl, jq and node.
 *
 * @module
 */
import { bundleAll } from "../tools/bundle.ts";
import { startEmulator } from "../testing/emulator_process.ts";
import { userEnv } from "../testing/tools.ts";
import { compare, cpuSeconds, report } from "./measure.ts";

const root = new URL("..", import.meta.url).pathname;
const deno = Deno.execPath();
const PAIRS = Number(Deno.env.get("BENCH_PAIRS") ?? 21);
const base = userEnv();

await using emulator = await startEmulator(["--rate-limit-per-minute", "0"]);
const dir = await Deno.makeTempDir();
await bundleAll(`${dir}/dist`);
const env = {
  ...base,
  STORE_CONFIG_FILE: `${dir}/none.toml`,
  STORE_ENTERPRISE_URL: emulator.enterpriseUrl,
  STORE_ENTERPRISE_USER: "admin@example.com",
  STORE_ENTERPRISE_PASSWORD: "demo-password",
};
const api = ["api", "enterprise", "get", "/v1/bdbs", "-q", "[].name"];
const curl = {
  label: "curl | jq",
  argv: ["sh", "-c", `curl -s -u admin@example.com:demo-password ${emulator.enterpriseUrl}/v1/bdbs | jq '[.[].name]'`],
  env: base,
};
const ctlDeno = { label: "ctl (Deno)", argv: [deno, "run", "-A", `${root}cli/main.ts`, ...api], env };
const cpuBefore = cpuSeconds();
const lines = [
  report(await compare(ctlDeno, curl, PAIRS), 2.2),
  report(
    await compare(
      ctlDeno,
      { label: "floor script (Deno)", argv: [deno, "run", "-A", `${root}bench/floor.ts`], env },
      PAIRS,
    ),
    1.5,
  ),
  report(
    await compare({ label: "ctl (Node bundle)", argv: ["node", `${dir}/dist/ctl.cjs`, ...api], env }, curl, PAIRS),
    2.7,
  ),
  report(
    await compare(
      { label: "ctl --help (Deno)", argv: [deno, "run", "-A", `${root}cli/main.ts`, "--help"], env: base },
      { label: "empty deno run", argv: [deno, "run", `${root}bench/empty.js`], env: base },
      PAIRS,
    ),
    1.5,
  ),
];
const cpuAfter = cpuSeconds();
await Deno.remove(dir, { recursive: true });
for (const line of lines) console.log(line);
console.log(
  `CPU: the benchmark process ${(cpuAfter.self - cpuBefore.self).toFixed(2)} s, ` +
    `the commands it ran ${(cpuAfter.children - cpuBefore.children).toFixed(2)} s`,
);
