/**
 * The Node single executable (`npm run build:binary`, `tools/sea.ts`): its size, and its start-up
 * on an API call against baselines timed interleaved in the same run (`bench/measure.ts`), on the
 * emulator over plain HTTP:
 *
 * - `ctl-node-linux-x64 api enterprise get /v1/bdbs -q '[].name'` vs `curl -s … | jq '[.[].name]'`
 *   (target ≤ 2.5×);
 * - the same binary built without its code cache (`useCodeCache: false`), to show what it saves;
 * - the Node bundle (`node dist/ctl.cjs`, its own code cache written by a first run) vs the binary.
 *
 * `NODE_EXTRA_CA_CERTS` is unset for every command (it adds 50–110 ms to any Node start here).
 *
 * Run: `deno run -A bench/binary_bench.ts` (`BENCH_PAIRS`, default 21). Needs curl, jq, node and
 * postject (`npm ci`).
 *
 * @module
 */
import { bundleAll } from "../tools/bundle.ts";
import { buildSea, SEA_NAME } from "../tools/sea.ts";
import { startEmulator } from "../testing/emulator_process.ts";
import { requireTool, userEnv } from "../testing/tools.ts";
import { compare, type Comparison, cpuSeconds, report } from "./measure.ts";

const PAIRS = Number(Deno.env.get("BENCH_PAIRS") ?? 21);
const base = userEnv();
const nodePath = await Deno.realPath(requireTool("node"));
const nodeVersion = new TextDecoder().decode(
  (await new Deno.Command(nodePath, { args: ["--version"], stdout: "piped" }).output()).stdout,
).trim();

await using emulator = await startEmulator(["--rate-limit-per-minute", "0"]);
const dir = await Deno.makeTempDir();
const binary = await buildSea(`${dir}/bin`);
const uncached = await buildSea(`${dir}/bin`, { codeCache: false, name: `${SEA_NAME}-no-code-cache` });
await bundleAll(`${dir}/dist`);
const mb = async (path: string) => `${((await Deno.stat(path)).size / 1e6).toFixed(1)} MB`;
const sizes = `${SEA_NAME}: ${await mb(binary)} (node ${nodeVersion} itself: ${await mb(nodePath)}, unstripped)`;

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
const sea = { label: `${SEA_NAME} (code cache)`, argv: [binary, ...api], env };
/** A comparison without a target. */
const info = (c: Comparison) => report(c, Infinity).replace(/ \(target .*$/, "");
const cpuBefore = cpuSeconds();
const lines = [
  report(await compare(sea, curl, PAIRS), 2.5),
  info(await compare({ label: `${SEA_NAME} without code cache`, argv: [uncached, ...api], env }, sea, PAIRS)),
  info(await compare({ label: "ctl (Node bundle)", argv: [nodePath, `${dir}/dist/ctl.cjs`, ...api], env }, sea, PAIRS)),
];
const cpuAfter = cpuSeconds();
await Deno.remove(dir, { recursive: true });
console.log(sizes);
for (const line of lines) console.log(line);
console.log(
  `CPU: the benchmark process ${(cpuAfter.self - cpuBefore.self).toFixed(2)} s, ` +
    `the commands it ran ${(cpuAfter.children - cpuBefore.children).toFixed(2)} s`,
);
