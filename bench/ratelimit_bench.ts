/**
 * The rate-limited route against its baselines on the same server, the Node bundle against
 * Deno, and ours against `hono-rate-limiter` with its Redis store — all in one run, each
 * comparison as interleaved pairs of short wrk runs (A, B, B, A, …) reported as the median of
 * the pairs' ratios with the best-to-best ratio beside it.
 *
 * Baselines: `GET /` on the memory store; `GET /health` (a PING: the same round trips) on Redis.
 * Every run uses `wrk_identities.lua` (requests formatted once, a fresh identity pool per run),
 * so the client's work is equal on both sides. CPU per request is read from `/proc`: it varies
 * far less than requests/s when other processes share the cores; wrk's own is reported too and
 * must stay below the server's.
 *
 * Run: `deno run -A bench/ratelimit_bench.ts` (needs wrk, redis-server, node). `BENCH_SECONDS`
 * (default 3) per run, `BENCH_PAIRS` (default 5) pairs per figure; `BENCH_ONLY=node` runs only
 * the Node-against-Deno figures, `BENCH_ONLY=limiter` only the rate limiter's.
 *
 * @module
 */
import { bundleAll } from "../tools/bundle.ts";
import { startRedis } from "../testing/redis_server.ts";
import { type ServerProcess, startServer } from "../testing/server_process.ts";
import { interleave, type Load, load, median, type Pairs, ratio } from "./load.ts";
import { redisPid } from "./redis_info.ts";

const root = new URL("..", import.meta.url).pathname;
const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 3);
const PAIRS = Number(Deno.env.get("BENCH_PAIRS") ?? 5);
const ONLY = Deno.env.get("BENCH_ONLY");
const LIMITED = "/api/RateLimited/sliding";

await using redis = await startRedis();
const redisCpu = [await redisPid(redis.port)];
const dir = await Deno.makeTempDir();
await bundleAll(dir);
const deno = [Deno.execPath(), "run", "-A", `${root}server/main.ts`];
const node = ["node", `${dir}/server.mjs`];
// NODE_EXTRA_CA_CERTS makes node read a CA file at start; no server here needs it.
Deno.env.delete("NODE_EXTRA_CA_CERTS");
const env = (store: string) => ({ STORE_URL: store });
await using denoMemory = await startServer(deno, env("memory:"));
await using denoRedis = await startServer(deno, env(redis.url));
await using nodeMemory = await startServer(node, env("memory:"));
await using nodeRedis = await startServer(node, env(redis.url));
await using nodeFloor = await startServer(["node", `${root}bench/node_http_floor.mjs`]);
await using theirs = await startServer(
  [Deno.execPath(), "run", "-A", `${root}bench/hono_rate_limiter_server.ts`],
  env(redis.url),
);

const lines: string[] = [];
const say = (line: string) => {
  lines.push(line);
  console.error(line); // progress while it runs; the summary goes to stdout at the end
};
const fixed = (n: number, digits = 2) => n.toFixed(digits);
const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
const med = (loads: readonly Load[], pick: (l: Load) => number) => median(loads.map(pick));

/** A wrk run (one thread, 50 connections) against `path`; paced at `rate` requests/s when given. */
function run(server: ServerProcess, path: string, extraPids: number[] = [], rate?: number) {
  return () =>
    load({
      url: `${server.url}${path}`,
      seconds: SECONDS,
      pids: [server.pid, ...extraPids],
      threads: 1,
      threadRate: rate,
    });
}

function describe(label: string, loads: readonly Load[]) {
  say(
    `  ${label}: ${fixed(med(loads, (l) => l.rps), 0)} req/s, p50 ${fixed(med(loads, (l) => l.p50Ms))} ms, p99 ${
      fixed(med(loads, (l) => l.p99Ms))
    } ms, CPU ${fixed(med(loads, (l) => l.cpuUs), 1)} µs/req (wrk ${fixed(med(loads, (l) => l.clientCpuUs), 1)}), ` +
      `non-2xx ${loads.reduce((n, l) => n + l.non2xx, 0)}, errors ${loads.reduce((n, l) => n + l.errors, 0)}`,
  );
  const client = med(loads, (l) => l.clientCpuUs);
  const server = med(loads, (l) => l.cpuUs);
  if (client >= server) {
    say(`  ⚠ wrk used more CPU per request than ${label} (${fixed(client, 1)} ≥ ${fixed(server, 1)} µs)`);
  }
}

/** The 1-minute load average: how busy the shared machine was around a figure. */
const loadAverage = async () => (await Deno.readTextFile("/proc/loadavg")).split(" ")[0];
let loadBefore = await loadAverage();

async function report(title: string, a: string, b: string, pairs: Pairs) {
  const loadAfter = await loadAverage();
  say(`${title} (${pairs.candidate.length} pairs of ${SECONDS} s; load average ${loadBefore} → ${loadAfter})`);
  loadBefore = loadAfter;
  describe(a, pairs.candidate);
  describe(b, pairs.baseline);
}

/** Prints a ratio, and its verdict when it has a target (at least `min` or at most `max`). */
function check(label: string, r: { median: number; best: number }, target: { min?: number; max?: number } = {}) {
  const line = `  → ${label}: ${fixed(r.median)}× (best ${fixed(r.best)}×)`;
  if (target.min !== undefined) say(`${line}, target ≥ ${target.min}×: ${verdict(r.median >= target.min)}`);
  else if (target.max !== undefined) say(`${line}, target ≤ ${target.max}×: ${verdict(r.median <= target.max)}`);
  else say(line);
}

// Item 8: the Node bundle against Deno on the plain route.
if (ONLY !== "limiter") {
  const pairs = await interleave(run(nodeMemory, "/"), run(denoMemory, "/"), PAIRS);
  await report("GET /, Node bundle vs Deno (memory store)", "Node", "Deno", pairs);
  check("requests/s, Node ÷ Deno", ratio(pairs, (l) => l.rps, "max"), { min: 0.5 });
  check("p99, Node ÷ Deno", ratio(pairs, (l) => l.p99Ms, "min"), { max: 2 });
  check("CPU per request, Node ÷ Deno", ratio(pairs, (l) => l.cpuUs, "min"));
  // What Node's own HTTP server costs without any framework, against Deno in the same way.
  const floor = await interleave(run(nodeFloor, "/"), run(denoMemory, "/"), PAIRS);
  await report("GET /, bare node:http (bench/node_http_floor.mjs) vs Deno", "node:http", "Deno", floor);
  check("requests/s, node:http ÷ Deno", ratio(floor, (l) => l.rps, "max"));
  check("CPU per request, node:http ÷ Deno", ratio(floor, (l) => l.cpuUs, "min"));
  // The same at equal offered load: half of Node's capacity, so neither server is saturated.
  const rate = Math.round(med(pairs.candidate, (l) => l.rps) / 2);
  const paced = await interleave(run(nodeMemory, "/", [], rate), run(denoMemory, "/", [], rate), PAIRS);
  await report(`GET /, Node bundle vs Deno, paced at ${rate} req/s`, "Node", "Deno", paced);
  check("p50, Node ÷ Deno", ratio(paced, (l) => l.p50Ms, "min"));
  check("p99, Node ÷ Deno", ratio(paced, (l) => l.p99Ms, "min"), { max: 2 });
}

if (ONLY !== "node") {
  const capacity: Record<string, number> = {};
  for (
    const [runtime, memory, onRedis] of [["Deno", denoMemory, denoRedis], ["Node", nodeMemory, nodeRedis]] as const
  ) {
    const mem = await interleave(run(memory, LIMITED), run(memory, "/"), PAIRS);
    await report(`${runtime}, memory store: rate-limited vs GET /`, "rate-limited", "GET /", mem);
    check("server CPU per request, limited ÷ GET /", ratio(mem, (l) => l.cpuUs, "min"), { max: 1.3 });
    capacity[`${runtime} memory`] = med(mem.candidate, (l) => l.rps);

    const red = await interleave(run(onRedis, LIMITED, redisCpu), run(onRedis, "/health", redisCpu), PAIRS);
    await report(
      `${runtime}, Redis store: rate-limited vs /health (CPU: server + redis-server)`,
      "rate-limited",
      "/health",
      red,
    );
    check("server + redis CPU per request, limited ÷ /health", ratio(red, (l) => l.cpuUs, "min"), { max: 1.3 });
    capacity[`${runtime} Redis`] = med(red.candidate, (l) => l.rps);
  }

  // Equal offered load: half the limited route's capacity measured above, both routes paced alike.
  for (
    const [runtime, memory, onRedis] of [["Deno", denoMemory, denoRedis], ["Node", nodeMemory, nodeRedis]] as const
  ) {
    for (
      const [store, server, baseline, pids] of [
        ["memory", memory, "/", []],
        ["Redis", onRedis, "/health", redisCpu],
      ] as const
    ) {
      const rate = Math.round(capacity[`${runtime} ${store}`] / 2);
      const pairs = await interleave(
        run(server, LIMITED, [...pids], rate),
        run(server, baseline, [...pids], rate),
        PAIRS,
      );
      await report(
        `${runtime}, ${store} store, paced at ${rate} req/s: rate-limited vs ${baseline}`,
        "rate-limited",
        baseline,
        pairs,
      );
      check(`p50, limited ÷ ${baseline}`, ratio(pairs, (l) => l.p50Ms, "min"), { max: 1.3 });
      check(`p99, limited ÷ ${baseline}`, ratio(pairs, (l) => l.p99Ms, "min"), { max: 2 });
      check(`CPU per request at this load, limited ÷ ${baseline}`, ratio(pairs, (l) => l.cpuUs, "min"));
    }
  }

  {
    const pairs = await interleave(run(denoRedis, LIMITED, redisCpu), run(theirs, LIMITED, redisCpu), PAIRS);
    await report(
      "Redis store, ours (Deno) vs hono-rate-limiter (fixed window, Deno)",
      "ours",
      "hono-rate-limiter",
      pairs,
    );
    check("requests/s, ours ÷ theirs", ratio(pairs, (l) => l.rps, "max"), { min: 1 });
    check("server + redis CPU per request, ours ÷ theirs", ratio(pairs, (l) => l.cpuUs, "min"));
  }
}

await Deno.remove(dir, { recursive: true });
console.log(lines.join("\n"));
