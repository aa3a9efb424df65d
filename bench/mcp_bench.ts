/**
 * `ctl mcp serve`, against the targets of its issue, each measured in one run:
 *
 * 1. from the process's start to its answer to `tools/list` (initialize, initialized and
 *    tools/list written at once, as a client does), target ≤ 300 ms on Deno; `ctl --version`'s
 *    whole run beside it, the floor of any start;
 * 2. a tool call (`cloud_subscription_list` against the emulator) against the same command run
 *    as a process (`ctl cloud subscription list -o json`), wall time, interleaved (A, B, B, A, …),
 *    target ≤ 1.1×.
 *
 * Run: `deno run -A bench/mcp_bench.ts` (`BENCH_ROUNDS`, default 10).
 *
 * @module
 */
import { DENO_CTL } from "../testing/ctl_process.ts";
import { startEmulator } from "../testing/emulator_process.ts";
import { median, ratio, rounds } from "./load.ts";

const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 10);
const say = (line: string) => console.log(line);
const ms = (n: number) => `${n.toFixed(1)} ms`;

await using emulator = await startEmulator(["--real-api"]);
const dir = await Deno.makeTempDir({ prefix: "mcp-bench-" });
const env = {
  PATH: Deno.env.get("PATH") ?? "",
  HOME: Deno.env.get("HOME") ?? dir, // Deno's module cache lives there
  XDG_STATE_HOME: dir,
  STORE_CONFIG_FILE: `${dir}/none.toml`,
  STORE_CLOUD_API_URL: emulator.cloudUrl,
  STORE_CLOUD_API_KEY: "demo-key",
  STORE_CLOUD_API_SECRET: "demo-secret",
};
const line = (message: unknown) => `${JSON.stringify(message)}\n`;
const INITIALIZE = line({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
}) + line({ jsonrpc: "2.0", method: "notifications/initialized" });

/** A running `ctl mcp serve`: send a request, read its answer line. */
function serve() {
  const child = new Deno.Command(DENO_CTL[0], {
    args: [...DENO_CTL.slice(1), "mcp", "serve"],
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const answer = async (id: number) => {
    for (;;) {
      const end = buffered.indexOf("\n");
      if (end !== -1) {
        const message = JSON.parse(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
        if (message.id === id) return message;
        continue;
      }
      const { value, done } = await lines.read();
      if (done) throw new Error("ctl mcp serve ended");
      buffered += value;
    }
  };
  let next = 1;
  return {
    async call(method: string, params: unknown) {
      const id = next++;
      await writer.write(new TextEncoder().encode(line({ jsonrpc: "2.0", id, method, params })));
      return await answer(id);
    },
    async start() {
      await writer.write(new TextEncoder().encode(INITIALIZE));
      await answer(0);
    },
    async [Symbol.asyncDispose]() {
      await writer.close();
      await child.status;
      await lines.cancel();
    },
  };
}

// 1. From start to the tools/list answer, against ctl --version's whole run.
const timed = async (work: () => Promise<unknown>) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};
const [toList, version] = await rounds([
  () =>
    timed(async () => {
      await using server = serve();
      await server.start();
      const { result } = await server.call("tools/list", {});
      if (!result.tools.length) throw new Error("no tools");
    }),
  () => timed(() => new Deno.Command(DENO_CTL[0], { args: [...DENO_CTL.slice(1), "--version"], env }).output()),
], ROUNDS);
say(
  `ctl mcp serve on Deno, ${ROUNDS} starts: tools/list answered ${ms(median(toList))} after the start ` +
    `(best ${ms(Math.min(...toList))}), target ≤ 300 ms: ${median(toList) <= 300 ? "PASS" : "FAIL"}; ` +
    `ctl --version's whole run ${ms(median(version))}`,
);

// 2. A tool call against the same command as a process.
await using server = serve();
await server.start();
const args = { name: "cloud_subscription_list", arguments: {} };
const [call, process] = await rounds([
  () =>
    timed(async () => {
      const { result } = await server.call("tools/call", args);
      if (result.isError) throw new Error(JSON.stringify(result));
    }),
  () =>
    timed(async () => {
      const out = await new Deno.Command(DENO_CTL[0], {
        args: [...DENO_CTL.slice(1), "cloud", "subscription", "list", "-o", "json"],
        env,
        clearEnv: true,
      }).output();
      if (out.code !== 0) throw new Error(new TextDecoder().decode(out.stderr));
    }),
], ROUNDS);
const r = ratio({ candidate: call, baseline: process }, (t) => t, "min");
say(
  `cloud_subscription_list as an MCP call ${ms(median(call))} against ctl cloud subscription list as a process ` +
    `${ms(median(process))}: ${r.median.toFixed(2)}× (best ${r.best.toFixed(2)}×), target ≤ 1.1×: ` +
    `${r.median <= 1.1 ? "PASS" : "FAIL"}`,
);
await Deno.remove(dir, { recursive: true });
