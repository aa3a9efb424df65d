/**
 * Throughput of the rate-limited route against the plain `GET /` of the same server (both
 * driven by the same wrk script, so the client's cost is equal), on the
 * memory and Redis stores, on Deno and on the Node bundle, and against `hono-rate-limiter`
 * with its Redis store — all in one run, with `wrk` (50 connections, 2 threads, 8 s each).
 * Every request carries its own identity (`wrk_identities.lua`), so nearly all pass.
 *
 * Run: `deno run -A bench/ratelimit_bench.ts` (needs wrk, redis-server, node).
 *
 * @module
 */
import { bundleAll } from "../tools/bundle.ts";
import { startRedis } from "../tests/redis_server.ts";
import { startServer } from "../tests/server_process.ts";

const root = new URL("..", import.meta.url).pathname;
const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 8);

interface Result {
  readonly rps: number;
  readonly p99Ms: number;
  readonly non2xx: number;
}

async function wrk(url: string, script?: string): Promise<Result> {
  const args = ["-t2", "-c50", `-d${SECONDS}s`, "--latency", ...(script ? ["-s", script] : []), url];
  const out = new TextDecoder().decode((await new Deno.Command("wrk", { args, stdout: "piped" }).output()).stdout);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]);
  const [, value, unit] = /99%\s+([\d.]+)(us|ms|s)/.exec(out)!;
  const p99Ms = Number(value) * (unit === "us" ? 0.001 : unit === "s" ? 1000 : 1);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  return { rps, p99Ms, non2xx };
}

async function withServer<T>(
  command: string[],
  env: Record<string, string>,
  fn: (url: string) => Promise<T>,
): Promise<T> {
  await using server = await startServer(command, env);
  return await fn(server.url);
}

await using redis = await startRedis();
if (!redis) throw new Error("redis-server is needed");
const dir = await Deno.makeTempDir();
await bundleAll(dir);
const script = `${root}bench/wrk_identities.lua`;
const runtimes = { Deno: [Deno.execPath(), "run", "-A", `${root}server/main.ts`], Node: ["node", `${dir}/server.mjs`] };
const lines: string[] = [];
const show = (label: string, r: Result) =>
  lines.push(`${label}: ${r.rps.toFixed(0)} req/s, p99 ${r.p99Ms.toFixed(2)} ms, non-2xx ${r.non2xx}`);
const ours: Record<string, Result> = {};

for (const [runtime, command] of Object.entries(runtimes)) {
  for (const [store, url] of [["memory", "memory:"], ["Redis", redis.url]]) {
    await withServer(command, { STORE_URL: url }, async (base) => {
      const plain = await wrk(`${base}/`, script); // same client work: the script sets the header
      const limited = await wrk(`${base}/api/RateLimited/sliding`, script);
      ours[`${runtime} ${store}`] = limited;
      show(`${runtime} ${store} plain GET /`, plain);
      show(`${runtime} ${store} rate-limited`, limited);
      const target = store === "memory" ? 0.8 : 0.4;
      const ratio = limited.rps / plain.rps;
      const p99 = store === "Redis"
        ? `, p99 ${limited.p99Ms.toFixed(2)} ms (target ≤ 5 ms): ${limited.p99Ms <= 5 ? "PASS" : "FAIL"}`
        : "";
      lines.push(
        `  → ${(ratio * 100).toFixed(0)}% of plain (target ≥ ${target * 100}%): ${
          ratio >= target ? "PASS" : "FAIL"
        }${p99}`,
      );
    });
  }
}
await withServer(
  [Deno.execPath(), "run", "-A", `${root}bench/hono_rate_limiter_server.ts`],
  { STORE_URL: redis.url },
  async (base) => {
    const theirs = await wrk(`${base}/api/RateLimited/sliding`, script);
    show("Deno hono-rate-limiter (fixed window) Redis", theirs);
    const ratio = ours["Deno Redis"].rps / theirs.rps;
    lines.push(
      `  → ours (Deno, Redis) is ${ratio.toFixed(2)}× hono-rate-limiter (target ≥ 1.0×): ${
        ratio >= 1 ? "PASS" : "FAIL"
      }`,
    );
  },
);
await Deno.remove(dir, { recursive: true });
console.log(lines.join("\n"));
