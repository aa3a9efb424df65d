/**
 * Two builds of the Node bundle on one redis-server, loaded in turn (A, B, B, A, …) like
 * `ratelimit_frameworks_bench.ts` loads its four servers: requests/s, server CPU per request
 * and Redis script time per decision of a candidate bundle against a baseline one, to tell a
 * change to the Node path apart from the machine's swings (which move the four-server bench's
 * ratios by ±20 % between runs here).
 *
 * Run: `deno run -A bench/ab_node_bundles.ts <baseline dist dir> <candidate dist dir>` (each a
 * `deno task bundle` output of a checkout). `BENCH_SECONDS` (default 3), `BENCH_ROUNDS` (default 8).
 *
 * @module
 */
import { startRedis } from "../testing/redis_server.ts";
import { startServer } from "../testing/server_process.ts";
import { load, median, ratio, rounds } from "./load.ts";
import { commandDelta, commandStats, redisPid, SCRIPT_COMMANDS } from "./redis_info.ts";

const [baselineDir, candidateDir] = Deno.args;
if (!baselineDir || !candidateDir) {
  throw new Error("usage: ab_node_bundles.ts <baseline dist dir> <candidate dist dir>");
}
const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 3);
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 8);
Deno.env.delete("NODE_EXTRA_CA_CERTS");
await using redis = await startRedis();
const redisProcess = await redisPid(redis.port);
const env = { STORE_URL: redis.url };
await using baseline = await startServer(["node", `${baselineDir}/server.mjs`], env);
await using candidate = await startServer(["node", `${candidateDir}/server.mjs`], env);

const subject = (server: typeof baseline) => async () => {
  const before = await commandStats(redis.port);
  const run = await load({
    url: `${server.url}/api/RateLimited/sliding`,
    seconds: SECONDS,
    connections: 50,
    threads: 1,
    pids: [server.pid, redisProcess],
    repeat: 20,
  });
  let scriptUsec = 0;
  for (const [name, stat] of commandDelta(before, await commandStats(redis.port))) {
    if (SCRIPT_COMMANDS.has(name)) scriptUsec += stat.usec;
  }
  return { ...run, scriptUs: scriptUsec / run.requests };
};
const [base, cand] = await rounds([subject(baseline), subject(candidate)], ROUNDS);
type Run = (typeof base)[number];
const show = (label: string, runs: Run[]) =>
  `${label}: ${median(runs.map((r) => r.rps)).toFixed(0)} req/s (best ${
    Math.max(...runs.map((r) => r.rps)).toFixed(0)
  }), server CPU ${median(runs.map((r) => r.cpuUsByPid[0])).toFixed(1)} µs/req, Redis script ${
    median(runs.map((r) => r.scriptUs)).toFixed(2)
  } µs/decision`;
const pairs = { candidate: cand, baseline: base };
const f = (r: { median: number; best: number }) => `${r.median.toFixed(2)}× (best ${r.best.toFixed(2)}×)`;
console.log(
  [
    `${ROUNDS} rounds of ${SECONDS} s, wrk -t1 -c50, 20 requests per identity in a row (half refused)`,
    show("baseline", base),
    show("candidate", cand),
    `candidate ÷ baseline: req/s ${f(ratio(pairs, (r) => r.rps, "max"))}, server CPU ${
      f(ratio(pairs, (r) => r.cpuUsByPid[0], "min"))
    }, Redis script ${f(ratio(pairs, (r) => r.scriptUs, "min"))}`,
  ].join("\n"),
);
