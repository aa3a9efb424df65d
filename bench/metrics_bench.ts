/**
 * What watching the service costs: server CPU per request with metrics on (`METRICS_PORT`) ÷
 * off (target ≤ 1.05×), and with tracing exporting every span to an OTLP/HTTP receiver ÷ off
 * (target ≤ 1.2×), on `GET /tasks/{id}` and on the rate-limited route, on Deno and on the Node
 * bundle, each pair of servers loaded in turn (A, B, B, A, …). Then the metrics registry after
 * 100,000 requests over 50 route templates and 1,000 tenants.
 *
 * Run: `deno run -A --v8-flags=--expose-gc bench/metrics_bench.ts` (needs wrk). `BENCH_SECONDS` (default 3) per run,
 * `BENCH_PAIRS` (default 5), `BENCH_ONLY=metrics|tracing|registry` for one part.
 *
 * @module
 */
import { DENO_SERVER, type ServerProcess, startServer } from "../testing/server_process.ts";
import { until } from "../testing/until.ts";
import { startOtlpReceiver } from "../testing/otlp_receiver.ts";
import { bundleAll } from "../tools/bundle.ts";
import { createService } from "../server/service.ts";
import { loadServerConfig } from "../server/config.ts";
import { createApp } from "../server/mod.ts";
import { createMemoryStore } from "../lib/store/mod.ts";
import { createTokenSet, parseTokens } from "../server/auth/tokens.ts";
import { digestHex } from "../lib/text/mod.ts";
import { type Load, load, median, ratio, rounds } from "./load.ts";

const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 3);
const PAIRS = Number(Deno.env.get("BENCH_PAIRS") ?? 5);
const ONLY = Deno.env.get("BENCH_ONLY");
const FIXED = new URL("./wrk_fixed.lua", import.meta.url).pathname;
const say = (line: string) => console.log(line);

async function finishedTask(server: ServerProcess): Promise<string> {
  const res = await fetch(`${server.url}/tasks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ kind: "demo", input: { steps: 1, delay_ms: 0, tokens: ["a"] } }),
  });
  const { task_id } = await res.json();
  await until(
    "the task is done",
    async () => (await (await fetch(`${server.url}/tasks/${task_id}`)).json()).status === "done",
  );
  return task_id;
}

/** Loads a server with `on` ÷ one without, pair by pair, on both routes; says the ratios against `target`. */
async function compare(runtime: string, command: string[], what: string, on: Record<string, string>, target: number) {
  const env = { RATE_LIMIT_MAX: "1000000" }; // the most it takes: the route answers 200 throughout a run
  await using without = await startServer(command, env);
  await using withIt = await startServer(command, { ...env, ...on });
  const ids = { with: await finishedTask(withIt), without: await finishedTask(without) };
  const basic = `Basic ${btoa("bench:x")}`;
  for (const [label, path] of [["GET /tasks/{id}", "task"], ["rate-limited route", "limited"]] as const) {
    const run = (server: ServerProcess, id: string) => () =>
      load({
        url: path === "task" ? `${server.url}/tasks/${id}` : `${server.url}/api/RateLimited/sliding`,
        seconds: SECONDS,
        pids: [server.pid],
        threads: 1,
        connections: 20,
        script: FIXED,
        env: path === "task" ? {} : { WRK_AUTHORIZATION: basic },
      });
    const [candidate, baseline] = await rounds([run(withIt, ids.with), run(without, ids.without)], PAIRS);
    const r = ratio({ candidate, baseline }, (l: Load) => l.cpuUs, "min");
    const med = (loads: readonly Load[]) => median(loads.map((l) => l.cpuUs)).toFixed(1);
    say(
      `${runtime}, ${label}: server CPU ${med(candidate)} µs/request with ${what}, ${med(baseline)} without: ` +
        `${r.median.toFixed(3)}× (best ${r.best.toFixed(3)}×), target ≤ ${target}×: ${
          r.median <= target ? "PASS" : "FAIL"
        } (wrk ${median(candidate.map((l) => l.clientCpuUs)).toFixed(1)} µs/request)`,
    );
  }
}

async function overheads(runtime: string, command: string[]) {
  if (!ONLY || ONLY === "metrics") await compare(runtime, command, "metrics", { METRICS_PORT: "0" }, 1.05);
  if (!ONLY || ONLY === "tracing") {
    // Every span exported (a batch every 100 ms) to a receiver that counts them: the server's share is all measured.
    await using receiver = startOtlpReceiver({ keep: false });
    const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "100" };
    await compare(runtime, command, "tracing", tracing, 1.2);
    say(`${runtime}: the receiver got ${receiver.count()} spans, ${receiver.dropped()} batches refused`);
  }
}

if (ONLY !== "registry") {
  await overheads("Deno", DENO_SERVER);
  const dir = await Deno.makeTempDir({ prefix: "metrics-bench-" });
  try {
    await bundleAll(dir);
    await overheads("Node bundle", ["node", `${dir}/server.mjs`]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

// The registry after 100,000 requests over 50 route templates and 1,000 tenants (tenant label on, cap 1,000),
// in process: the app without sockets, every request a bearer token's.
if (!ONLY || ONLY === "registry") {
  const tokens = Array.from({ length: 1_000 }, (_, i) => ({ token: `bench-token-${i}`, tenant: `tenant-${i}` }));
  const file = JSON.stringify(
    await Promise.all(
      tokens.map(async ({ token, tenant }) => ({
        name: tenant,
        tenant,
        scopes: ["tasks:read"],
        sha256: await digestHex("SHA-256", token),
      })),
    ),
  );
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {}); // with --v8-flags=--expose-gc
  // The same requests to a service without metrics, then with: the heap's difference is the registry's.
  const heapAfter = async (env: Record<string, string>) => {
    const service = createService(loadServerConfig(env), {
      store: createMemoryStore(),
      tokens: createTokenSet(parseTokens(file, "bench")),
      log: () => {},
    });
    const app = createApp(service);
    const templates = app.routes.map((r) => r.path).filter((p) => p !== "/*" && p !== "*");
    const paths = [...new Set(templates)].slice(0, 50).map((p) => p.replaceAll(/:[a-z_]+/g, "x"));
    gc();
    const before = Deno.memoryUsage().heapUsed;
    for (let i = 0; i < 100_000; i++) {
      const { token } = tokens[i % tokens.length];
      const res = await app.request(paths[i % paths.length], { headers: { authorization: `Bearer ${token}` } });
      await res.body?.cancel();
    }
    gc();
    const grown = Deno.memoryUsage().heapUsed - before;
    const text = service.metrics ? (await service.metrics.render()).text : "";
    await service.close();
    return { grown, text, paths: paths.length };
  };
  const without = await heapAfter({});
  const withMetrics = await heapAfter({ METRICS_PORT: "0", METRICS_TENANT_LABEL: "true", METRICS_TENANT_CAP: "1000" });
  const series = withMetrics.text.split("\n").filter((l) => l && !l.startsWith("#")).length;
  say(
    `after 100,000 requests over ${withMetrics.paths} route templates and ${tokens.length} tenants (tenant label on): ` +
      `the exposition is ${(withMetrics.text.length / 1024).toFixed(0)} kB, ${series} lines; heap growth with ` +
      `metrics − without: ${((withMetrics.grown - without.grown) / 2 ** 20).toFixed(1)} MB (the tenants' own scopes ` +
      `grow it by ${(without.grown / 2 ** 20).toFixed(0)} MB either way)`,
  );
}
