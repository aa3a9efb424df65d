/**
 * What the metrics cost: server CPU per request with `METRICS_PORT` set ÷ without, on
 * `GET /tasks/{id}` and on the rate-limited route, on Deno and on the Node bundle, each pair of
 * servers loaded in turn (A, B, B, A, …); target ≤ 1.05×. Then the registry's size after 100,000
 * requests over 50 route templates (scraped, in bytes).
 *
 * Run: `deno run -A bench/metrics_bench.ts` (needs wrk). `BENCH_SECONDS` (default 3) per run,
 * `BENCH_PAIRS` (default 5).
 *
 * @module
 */
import { DENO_SERVER, type ServerProcess, startServer } from "../testing/server_process.ts";
import { until } from "../testing/until.ts";
import { bundleAll } from "../tools/bundle.ts";
import { type Load, load, median, ratio, rounds } from "./load.ts";

const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 3);
const PAIRS = Number(Deno.env.get("BENCH_PAIRS") ?? 5);
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

async function compare(runtime: string, command: string[]) {
  const env = { RATE_LIMIT_MAX: "1000000" }; // the most it takes: the route answers 200 throughout a run
  await using off = await startServer(command, env);
  await using on = await startServer(command, { ...env, METRICS_PORT: "0" });
  const ids = { off: await finishedTask(off), on: await finishedTask(on) };
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
    const [withMetrics, without] = await rounds([run(on, ids.on), run(off, ids.off)], PAIRS);
    const r = ratio({ candidate: withMetrics, baseline: without }, (l: Load) => l.cpuUs, "min");
    const med = (loads: readonly Load[]) => median(loads.map((l) => l.cpuUs)).toFixed(1);
    say(
      `${runtime}, ${label}: server CPU ${med(withMetrics)} µs/request with metrics, ${med(without)} without: ` +
        `${r.median.toFixed(3)}× (best ${r.best.toFixed(3)}×), target ≤ 1.05×: ${r.median <= 1.05 ? "PASS" : "FAIL"} ` +
        `(wrk ${median(withMetrics.map((l) => l.clientCpuUs)).toFixed(1)} µs/request)`,
    );
  }
}

await compare("Deno", DENO_SERVER);
const dir = await Deno.makeTempDir({ prefix: "metrics-bench-" });
try {
  await bundleAll(dir);
  await compare("Node bundle", ["node", `${dir}/server.mjs`]);
} finally {
  await Deno.remove(dir, { recursive: true });
}

// The registry after 100,000 requests over 50 route templates (50 distinct 404 task ids share one template).
{
  await using server = await startServer(DENO_SERVER, { METRICS_PORT: "0" });
  const metricsUrl = server.banner.match(/metrics: (\S+?)\)?$/)![1];
  const paths = ["/tasks/x", "/tasks/x/children", "/tasks/x/tree", "/nowhere", "/pipelines/status", "/health"];
  let sent = 0;
  while (sent < 100_000) {
    await Promise.all(
      Array.from(
        { length: 100 },
        (_, i) => fetch(`${server.url}${paths[(sent + i) % paths.length]}`).then((r) => r.body?.cancel()),
      ),
    );
    sent += 100;
  }
  const text = await (await fetch(metricsUrl)).text();
  const series = text.split("\n").filter((l) => l && !l.startsWith("#")).length;
  say(`after ${sent} requests over ${paths.length} paths: the exposition is ${text.length} bytes, ${series} series`);
}
