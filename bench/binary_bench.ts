/**
 * The Node single executable (`npm run build:binary`, `tools/sea.ts`): its size, and its start-up
 * on an API call against baselines timed interleaved in the same run (`bench/measure.ts`), on the
 * emulator over plain HTTP:
 *
 * - `ctl-node-linux-x64 api cloud get /subscriptions -q 'subscriptions[].name'` vs
 *   `curl -s … | jq '[.subscriptions[].name]'` (target ≤ 2.5×) and vs the Node bundle running the
 *   same command (`node dist/ctl.cjs`, its own code cache written by a first run; target ≤ 1.0×),
 *   first with `NODE_EXTRA_CA_CERTS` unset, then set to a CA file (`BENCH_CA_FILE`, default the
 *   system's bundle `/etc/ssl/certs/ca-certificates.crt`), which Node 20 loads at every start;
 * - what that variable costs an empty `node` start;
 * - the same binary built without its code cache (`useCodeCache: false`), to show what it saves.
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
import { compare, type Comparison, cpuSeconds, report, type Subject } from "./measure.ts";

const PAIRS = Number(Deno.env.get("BENCH_PAIRS") ?? 21);
const CA_FILE = Deno.env.get("BENCH_CA_FILE") ?? "/etc/ssl/certs/ca-certificates.crt";
const base = userEnv();
const nodePath = await Deno.realPath(requireTool("node"));
const nodeVersion = new TextDecoder().decode(
  (await new Deno.Command(nodePath, { args: ["--version"], stdout: "piped" }).output()).stdout,
).trim();
const certificates = (await Deno.readTextFile(CA_FILE)).split("BEGIN CERTIFICATE").length - 1;

await using emulator = await startEmulator(["--rate-limit-per-minute", "0"]);
const dir = await Deno.makeTempDir();
const binary = await buildSea(`${dir}/bin`);
const uncached = await buildSea(`${dir}/bin`, { codeCache: false, name: `${SEA_NAME}-no-code-cache` });
await bundleAll(`${dir}/dist`);
await Deno.writeTextFile(`${dir}/empty.js`, "");
const mb = async (path: string) => `${((await Deno.stat(path)).size / 1e6).toFixed(1)} MB`;
const sizes = `${SEA_NAME}: ${await mb(binary)} (node ${nodeVersion} itself: ${await mb(nodePath)}, unstripped)`;

const env = {
  ...base,
  STORE_CONFIG_FILE: `${dir}/none.toml`,
  STORE_CLOUD_API_URL: emulator.cloudUrl,
  STORE_CLOUD_API_KEY: "demo-key",
  STORE_CLOUD_API_SECRET: "demo-secret",
};
const api = ["api", "cloud", "get", "/subscriptions", "-q", "subscriptions[].name"];
const auth = "-H x-api-key:demo-key -H x-api-secret-key:demo-secret";
const curl = {
  label: "curl | jq",
  argv: ["sh", "-c", `curl -s ${auth} ${emulator.cloudUrl}/subscriptions | jq '[.subscriptions[].name]'`],
  env: base,
};
/** `subject` with `NODE_EXTRA_CA_CERTS` set to `CA_FILE`. */
const withCa = (subject: Subject): Subject => ({
  label: `${subject.label}, NODE_EXTRA_CA_CERTS set`,
  argv: subject.argv,
  env: { ...subject.env, NODE_EXTRA_CA_CERTS: CA_FILE },
});
const sea = { label: SEA_NAME, argv: [binary, ...api], env };
const bundle = { label: "node dist/ctl.cjs", argv: [nodePath, `${dir}/dist/ctl.cjs`, ...api], env };
const empty = { label: "empty node", argv: [nodePath, `${dir}/empty.js`], env: base };
/** A comparison without a target. */
const info = (c: Comparison) => report(c, Infinity).replace(/ \(target .*$/, "");
const cpuBefore = cpuSeconds();
const lines = [
  report(await compare(sea, curl, PAIRS), 2.5),
  report(await compare(sea, bundle, PAIRS), 1.0),
  report(await compare(withCa(sea), curl, PAIRS), 2.5),
  report(await compare(withCa(sea), withCa(bundle), PAIRS), 1.0),
  info(await compare(withCa(empty), empty, PAIRS)),
  info(await compare({ label: `${SEA_NAME} without code cache`, argv: [uncached, ...api], env }, sea, PAIRS)),
];
const cpuAfter = cpuSeconds();
await Deno.remove(dir, { recursive: true });
console.log(sizes);
console.log(`NODE_EXTRA_CA_CERTS, where set: ${CA_FILE} (${certificates} certificates)`);
for (const line of lines) console.log(line);
console.log(
  `CPU: the benchmark process ${(cpuAfter.self - cpuBefore.self).toFixed(2)} s, ` +
    `the commands it ran ${(cpuAfter.children - cpuBefore.children).toFixed(2)} s`,
);
