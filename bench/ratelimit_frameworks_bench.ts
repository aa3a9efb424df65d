/**
 * The rate-limited route against what a Node user would pick instead, in one run on one
 * redis-server: our Node bundle, our Deno server, Express + `express-rate-limit` +
 * `rate-limit-redis`, and Fastify + `@fastify/rate-limit` (servers in `bench/frameworks/`),
 * each limiting `GET /api/RateLimited/sliding` to 10 requests per 30 s per Basic identity.
 *
 * Each round loads every server once with wrk (one thread, 50 connections, `wrk_identities.lua`),
 * forward then backward in turn (A, B, C, D, D, C, B, A, …) after a warm-up round. Every identity
 * sends 20 requests in a row (`WRK_REPEAT`), so every request is a decision and half of them are
 * refused whatever the throughput: 10 answered 200, then 10 answered 429 (the share is printed
 * for each server as a check that all four limit alike).
 *
 * Two sets of rounds: saturated (each server as fast as it goes), then paced at
 * `BENCH_PACED_RATE` requests/s (default 1,000, under every server's capacity: p99 at equal
 * offered load). Per server: requests/s, p99, CPU per request of the server and of
 * redis-server (`/proc`), and the time redis-server spent in the scripts the server sends:
 * `INFO commandstats`, `EVALSHA`/`EVAL` µs ÷ requests (each of the four sends one script per
 * decision and nothing else; the commands a script calls are listed apart, since Redis counts
 * them inside the script's own time too). The goals are judged on the saturated rounds; the
 * paced ones are a second reading (`commandstats` times are wall-clock, and at a low rate each
 * script runs on a cold core: every figure per request is higher there). Ratios to the Node
 * bundle are medians of the rounds' ratios with best-to-best beside them. wrk's CPU per request
 * is printed and must stay below each server's in the saturated rounds.
 *
 * Run: `deno run -A bench/ratelimit_frameworks_bench.ts` (needs wrk, redis-server, node, and the
 * competitors' packages: `npm ci` in `bench/frameworks/`, which this does when they are missing).
 * `BENCH_SECONDS` (default 3) per run, `BENCH_ROUNDS` (default 7).
 *
 * @module
 */
import { bundleAll } from "../tools/bundle.ts";
import { startRedis } from "../testing/redis_server.ts";
import { type ServerProcess, startServer } from "../testing/server_process.ts";
import { type Load, load, median, ratio, rounds } from "./load.ts";
import {
  commandDelta,
  type CommandStats,
  commandStats,
  redisPid,
  SCRIPT_COMMANDS,
  scriptTotals,
} from "./redis_info.ts";

const root = new URL("..", import.meta.url).pathname;
const frameworks = `${root}bench/frameworks`;
const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 3);
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 7);
/** Requests/s of the paced rounds: under every server's capacity here (Express's is the lowest). */
const PACED_RATE = Number(Deno.env.get("BENCH_PACED_RATE") ?? 1000);
const LIMITED = "/api/RateLimited/sliding";
const CONNECTIONS = 50;
/** Requests per identity in a row: twice the limit, so half are refused. */
const REPEAT = 20;

/** One wrk run against one server, with what redis-server did meanwhile. */
interface Sample extends Load {
  /** Calls of script commands (`EVALSHA`, `EVAL`, …) and µs spent in them. */
  readonly scriptCalls: number;
  readonly scriptUsec: number;
  /** Every command redis-server ran meanwhile, those called inside the scripts included. */
  readonly commands: CommandStats;
}

const installed = await Deno.stat(`${frameworks}/node_modules/fastify`).then(() => true, () => false);
if (!installed) {
  console.error(`installing the competitors' packages: npm ci in ${frameworks}`);
  const npm = await new Deno.Command("npm", { args: ["ci", "--no-audit", "--no-fund"], cwd: frameworks }).output();
  if (!npm.success) throw new Error(`npm ci in ${frameworks} failed: ${new TextDecoder().decode(npm.stderr)}`);
}

await using redis = await startRedis();
const redisProcess = await redisPid(redis.port);
const dir = await Deno.makeTempDir();
await bundleAll(dir);
// NODE_EXTRA_CA_CERTS makes node read a CA file at start; no server here needs it.
Deno.env.delete("NODE_EXTRA_CA_CERTS");
const env = { STORE_URL: redis.url };
await using nodeBundle = await startServer(["node", `${dir}/server.mjs`], env);
await using deno = await startServer([Deno.execPath(), "run", "-A", `${root}server/main.ts`], env);
await using express = await startServer(["node", `${frameworks}/express_server.mjs`], env);
await using fastify = await startServer(["node", `${frameworks}/fastify_server.mjs`], env);
const servers: readonly (readonly [string, ServerProcess])[] = [
  ["Node bundle", nodeBundle],
  ["Deno", deno],
  ["Express", express],
  ["Fastify", fastify],
];

const lines: string[] = [];
const say = (line: string) => {
  lines.push(line);
  console.error(line); // progress while it runs; the summary goes to stdout at the end
};
const fixed = (n: number, digits = 2) => n.toFixed(digits);
const loadAverage = async () => (await Deno.readTextFile("/proc/loadavg")).split(" ")[0];

function subject(server: ServerProcess, rate?: number): () => Promise<Sample> {
  return async () => {
    const before = await commandStats(redis.port);
    const run = await load({
      url: `${server.url}${LIMITED}`,
      seconds: SECONDS,
      connections: CONNECTIONS,
      threads: 1,
      threadRate: rate,
      pids: [server.pid, redisProcess],
      repeat: REPEAT,
    });
    const commands = commandDelta(before, await commandStats(redis.port));
    const scripts = scriptTotals(commands);
    return { ...run, scriptCalls: scripts.calls, scriptUsec: scripts.usec, commands };
  };
}

// What the idle servers send by themselves (our task runners poll the queue), to weigh against
// a run: it lands in whichever server's figures are being taken.
const idleBefore = await commandStats(redis.port);
const idleSeconds = 5;
await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
const idle = scriptTotals(commandDelta(idleBefore, await commandStats(redis.port)));

const loadBefore = await loadAverage();
const saturated = await rounds(servers.map(([, server]) => subject(server)), ROUNDS);
const loadBetween = await loadAverage();
const paced = await rounds(servers.map(([, server]) => subject(server, PACED_RATE)), ROUNDS);
const loadAfter = await loadAverage();

const perDecision = (s: Sample) => s.scriptUsec / s.requests;
const serverCpu = (s: Sample) => s.cpuUsByPid[0];
const redisCpu = (s: Sample) => s.cpuUsByPid[1];
const med = (runs: readonly Sample[], pick: (s: Sample) => number) => median(runs.map(pick));
const fixedRatio = (r: { median: number; best: number }) => `${fixed(r.median)}× (best ${fixed(r.best)}×)`;
const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");

/** One line per server: its medians (best beside), and warnings when a run is not what it should be. */
function table(samples: Sample[][], saturated: boolean) {
  say(
    "  server: req/s median (best); p99 ms median (best); refused; server CPU µs/req; redis-server CPU µs/decision; " +
      "Redis script µs/decision (script calls/decision); wrk CPU µs/req",
  );
  for (const [i, [label]] of servers.entries()) {
    const runs = samples[i];
    const requests = runs.reduce((n, s) => n + s.requests, 0);
    const refused = runs.reduce((n, s) => n + s.non2xx, 0) / requests;
    const errors = runs.reduce((n, s) => n + s.errors, 0);
    say(
      `  ${label}: ${fixed(med(runs, (s) => s.rps), 0)} (${fixed(Math.max(...runs.map((s) => s.rps)), 0)}); ` +
        `${fixed(med(runs, (s) => s.p99Ms))} (${fixed(Math.min(...runs.map((s) => s.p99Ms)))}); ` +
        `${fixed(refused * 100, 1)} %; ${fixed(med(runs, serverCpu), 1)}; ${fixed(med(runs, redisCpu), 1)}; ` +
        `${fixed(med(runs, perDecision))} (${fixed(med(runs, (s) => s.scriptCalls / s.requests), 3)}); ` +
        `${fixed(med(runs, (s) => s.clientCpuUs), 1)}${errors ? `; socket errors ${errors}` : ""}`,
    );
    if (Math.abs(refused - 0.5) > 0.05) say(`  ⚠ ${label} refused ${fixed(refused * 100, 1)} %, not about half`);
    const client = med(runs, (s) => s.clientCpuUs);
    if (saturated && client >= med(runs, serverCpu)) {
      say(`  ⚠ wrk used more CPU per request than ${label}'s server process`);
    }
  }
}

/** Ratios of the Node bundle to each other server, the rounds paired. */
function ratios(samples: Sample[][], picks: readonly (readonly [string, (s: Sample) => number, "max" | "min"])[]) {
  say("  Node bundle ÷ each (median of the rounds' ratios, best to best):");
  for (let i = 1; i < servers.length; i++) {
    const pairs = { candidate: samples[0], baseline: samples[i] };
    say(
      `    ÷ ${servers[i][0]}: ${
        picks.map(([name, pick, best]) => `${name} ${fixedRatio(ratio(pairs, pick, best))}`).join(", ")
      }`,
    );
  }
}

say(
  `GET ${LIMITED}, 10 per 30 s, four servers on one redis-server, ${ROUNDS} rounds of ${SECONDS} s each after a ` +
    `warm-up round, wrk -t1 -c${CONNECTIONS}, ${REPEAT} requests per identity in a row (half refused)`,
);
say(`Saturated (as fast as each goes; load average ${loadBefore} → ${loadBetween}):`);
table(saturated, true);
ratios(saturated, [
  ["req/s", (s) => s.rps, "max"],
  ["p99", (s) => s.p99Ms, "min"],
  ["server CPU", serverCpu, "min"],
  ["Redis script µs", perDecision, "min"],
  ["redis-server CPU", redisCpu, "min"],
]);
say("  inside the scripts, per decision (calls × µs per call), the saturated run with the median script time:");
for (const [i, [label]] of servers.entries()) {
  const runs = [...saturated[i]].sort((a, b) => perDecision(a) - perDecision(b));
  const run = runs[Math.floor(runs.length / 2)];
  const parts = [...run.commands]
    .filter(([name, stat]) => !SCRIPT_COMMANDS.has(name) && name !== "info" && stat.calls / run.requests >= 0.01)
    .sort(([, a], [, b]) => b.usec - a.usec)
    .map(([name, stat]) => `${name} ${fixed(stat.calls / run.requests)} × ${fixed(stat.usec / stat.calls)}`);
  say(`    ${label}: ${parts.join(", ")}`);
}
const idleRate = `${fixed(idle.calls / idleSeconds, 1)} calls/s, ${fixed(idle.usec / idleSeconds, 0)} µs/s`;
say(`  idle servers' own scripts: ${idleRate} (counted in whichever run they fall)`);

say(`Paced at ${PACED_RATE} req/s each (no process saturated; load average ${loadBetween} → ${loadAfter}):`);
table(paced, false);
ratios(paced, [
  ["p99", (s) => s.p99Ms, "min"],
  ["server CPU", serverCpu, "min"],
  ["Redis script µs", perDecision, "min"],
  ["redis-server CPU", redisCpu, "min"],
]);
const rpsRatio = (i: number) => ratio({ candidate: saturated[0], baseline: saturated[i] }, (s) => s.rps, "max");
const expressRps = rpsRatio(2);
const fastifyRps = rpsRatio(3);
say("Goals:");
say(`  req/s, Node bundle ÷ Express ${fixedRatio(expressRps)}, target > 1 (ahead): ${verdict(expressRps.median > 1)}`);
say(
  `  req/s, Node bundle ÷ Fastify ${fixedRatio(fastifyRps)}, target ≥ 0.95 (level): ${
    verdict(fastifyRps.median >= 0.95)
  }`,
);
for (const i of [2, 3]) {
  const r = ratio({ candidate: saturated[0], baseline: saturated[i] }, perDecision, "min");
  say(
    `  Redis script µs per decision, ours (Node bundle) ÷ ${servers[i][0]} ${fixedRatio(r)}, ` +
      `target ≤ 1.5: ${verdict(r.median <= 1.5)}`,
  );
}

await Deno.remove(dir, { recursive: true });
console.log(lines.join("\n"));
