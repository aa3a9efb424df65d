/**
 * What authentication costs per request: `GET /tasks/{id}` with a bearer token on a
 * server with `SERVICE_TOKENS_FILE` (11 tokens: the token check, the route's scope) against the
 * same request on the same kind of server running open, in one run, as interleaved pairs of
 * short wrk runs (A, B, B, A, …): the median of the pairs' ratios with best-to-best beside it.
 * Both sides send the same bytes (`wrk_fixed.lua`; the open server ignores the header), so the
 * client's work is equal; wrk's CPU per request is reported and must stay below the server's.
 * Goal: ≤ 1.1× (server CPU per request, and requests/s off ÷ on). With tokens each request also
 * works in its caller's tenant (its store view), so the figure includes tenant scoping.
 *
 * Figures: Deno and the Node bundle on the memory store (where auth is the largest share of the
 * work), and Deno on Redis (CPU: server + redis-server). Also, in process: one token lookup.
 *
 * Run: `deno run -A bench/auth_bench.ts` (needs wrk, redis-server, node). `BENCH_SECONDS`
 * (default 3) per run, `BENCH_PAIRS` (default 5) pairs per figure; `BENCH_ONLY=deno|node|redis` one figure (and
 * the in-process ones), `inprocess` only those.
 *
 * @module
 */
import { bundleAll } from "../tools/bundle.ts";
import { testTokens } from "../testing/auth_tokens.ts";
import { startRedis } from "../testing/redis_server.ts";
import { type ServerProcess, startServer } from "../testing/server_process.ts";
import { createTokenSet, parseTokens } from "../server/auth/tokens.ts";
import { createMemoryStore } from "../lib/store/mod.ts";
import { createApp, createService, loadServerConfig } from "../server/mod.ts";
import { interleave, type Load, load, median, type Pairs, ratio, rounds } from "./load.ts";
import { redisPid } from "./redis_info.ts";

const root = new URL("..", import.meta.url).pathname;
const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 3);
const PAIRS = Number(Deno.env.get("BENCH_PAIRS") ?? 5);
/** `node`, `deno` or `redis`: run only that figure. */
const ONLY = Deno.env.get("BENCH_ONLY");
const SCRIPT = new URL("./wrk_fixed.lua", import.meta.url).pathname;

const tokens = testTokens();
const token = tokens.only["tasks:read"];
const file = await Deno.makeTempFile({ suffix: ".json" });
await Deno.writeTextFile(file, tokens.file);
await using redis = await startRedis();
const redisCpu = [await redisPid(redis.port)];
const dir = await Deno.makeTempDir();
await bundleAll(dir);
Deno.env.delete("NODE_EXTRA_CA_CERTS"); // it makes node read a CA file at start; no server here needs it
const deno = [Deno.execPath(), "run", "-A", `${root}server/main.ts`];
const node = ["node", `${dir}/server.mjs`];
const on: Record<string, string> = Deno.env.get("BENCH_AA") ? {} : { SERVICE_TOKENS_FILE: file };

const lines: string[] = [];
const say = (line: string) => {
  lines.push(line);
  console.error(line);
};
const fixed = (n: number, digits = 2) => n.toFixed(digits);
const med = (loads: readonly Load[], pick: (l: Load) => number) => median(loads.map(pick));

/** Creates one finished task on `server` and answers its URL. */
async function taskUrl(server: ServerProcess): Promise<string> {
  const res = await fetch(`${server.url}/tasks`, {
    method: "POST",
    headers: { authorization: `Bearer ${tokens.admin}`, "content-type": "application/json" },
    body: JSON.stringify({ kind: "demo", input: { steps: 0 } }),
  });
  if (res.status !== 201) throw new Error(`POST /tasks answered ${res.status}: ${await res.text()}`);
  return `${server.url}/tasks/${(await res.json()).task_id}`;
}

const run = (url: string, pids: number[]) => () =>
  load({ url, seconds: SECONDS, pids, threads: 1, connections: 50, script: SCRIPT, env: { WRK_BEARER: token } });

function describe(label: string, loads: readonly Load[]) {
  const bad = loads.reduce((n, l) => n + l.non2xx + l.errors, 0);
  say(
    `  ${label}: ${fixed(med(loads, (l) => l.rps), 0)} req/s, p50 ${fixed(med(loads, (l) => l.p50Ms))} ms, p99 ${
      fixed(med(loads, (l) => l.p99Ms))
    } ms, CPU ${fixed(med(loads, (l) => l.cpuUs), 1)} µs/req${
      loads[0].cpuUsByPid.length > 1
        ? ` (server ${fixed(med(loads, (l) => l.cpuUsByPid[0]), 1)}, redis ${
          fixed(med(loads, (l) => l.cpuUsByPid[1]), 1)
        })`
        : ""
    } (wrk ${fixed(med(loads, (l) => l.clientCpuUs), 1)})` +
      (bad ? `, ⚠ ${bad} non-2xx or errors` : ""),
  );
  if (med(loads, (l) => l.clientCpuUs) >= med(loads, (l) => l.cpuUs)) say(`  ⚠ wrk used more CPU than ${label}`);
}

const loadAverage = async () => (await Deno.readTextFile("/proc/loadavg")).split(" ")[0];

async function figure(title: string, command: string[], env: Record<string, string>, extra: number[] = []) {
  await using withAuth = await startServer(command, { ...env, ...on });
  await using open = await startServer(command, env);
  const before = await loadAverage();
  const pairs: Pairs = await interleave(
    run(await taskUrl(withAuth), [withAuth.pid, ...extra]),
    run(await taskUrl(open), [open.pid, ...extra]),
    PAIRS,
  );
  say(`${title} (${PAIRS} pairs of ${SECONDS} s; load average ${before} → ${await loadAverage()})`);
  describe("auth on ", pairs.candidate);
  describe("auth off", pairs.baseline);
  const cpu = ratio(pairs, (l) => l.cpuUs, "min");
  const rps = ratio({ candidate: pairs.baseline, baseline: pairs.candidate }, (l) => l.rps, "max");
  const p50 = ratio(pairs, (l) => l.p50Ms, "min");
  const verdict = (r: { median: number }) => (r.median <= 1.1 ? "PASS" : "FAIL");
  say(
    `  → server CPU per request, on ÷ off: ${fixed(cpu.median)}× (best ${fixed(cpu.best)}×), ≤ 1.1×: ${verdict(cpu)}`,
  );
  say(`  → requests/s, off ÷ on: ${fixed(rps.median)}× (best ${fixed(rps.best)}×), ≤ 1.1×: ${verdict(rps)}`);
  say(`  → p50, on ÷ off: ${fixed(p50.median)}× (best ${fixed(p50.best)}×)`);
}

try {
  // In process: the token check alone (SHA-256 of the token, compared with all 11 digests).
  const set = createTokenSet(parseTokens(tokens.file, file));
  for (let i = 0; i < 20_000; i++) await set.lookup(token);
  const n = 200_000;
  const start = performance.now();
  for (let i = 0; i < n; i++) await set.lookup(token);
  say(
    `In process: one token lookup (SHA-256 + ${set.size} constant-time compares): ${
      fixed((performance.now() - start) * 1000 / n, 2)
    } µs`,
  );

  // In process: the whole app without sockets, so the auth middleware's share is as large as it gets.
  {
    const store = createMemoryStore();
    const config = loadServerConfig({});
    const apps = {
      on: createApp(createService(config, { store, tokens: set, log: () => {} })),
      off: createApp(createService(config, { store, log: () => {} })),
    };
    // Each app's own task: with tokens, a task lives in its caller's tenant.
    const taskOf = async (app: typeof apps.on) => {
      const created = await (await app.request("/tasks", {
        method: "POST",
        headers: { authorization: `Bearer ${tokens.admin}`, "content-type": "application/json" },
        body: JSON.stringify({ kind: "demo", input: { steps: 0 } }),
      })).json();
      return `http://localhost/tasks/${created.task_id}`;
    };
    const urls = new Map([[apps.on, await taskOf(apps.on)], [apps.off, await taskOf(apps.off)]]);
    const headers = { authorization: `Bearer ${token}` };
    const round = async (app: typeof apps.on) => {
      const count = 5_000;
      const url = urls.get(app)!;
      const begin = performance.now();
      for (let i = 0; i < count; i++) {
        const res = await app.request(url, { headers });
        if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
        await res.arrayBuffer();
      }
      return (performance.now() - begin) * 1000 / count;
    };
    const [a, b] = await rounds([() => round(apps.on), () => round(apps.off)], 3 * PAIRS);
    const ratios = a.map((x, i) => x / b[i]);
    say(`In process, GET /tasks/{id} through app.request (${a.length} interleaved rounds of 5,000):`);
    say(
      `  auth on ${fixed(median(a), 1)} µs, auth off ${fixed(median(b), 1)} µs (fastest ${fixed(Math.min(...a), 1)} / ${
        fixed(Math.min(...b), 1)
      })`,
    );
    say(`  → on ÷ off: ${fixed(median(ratios))}× (fastest to fastest ${fixed(Math.min(...a) / Math.min(...b))}×)`);
    await store.close();
  }

  if (!ONLY || ONLY === "deno") {
    await figure("Deno, memory store: GET /tasks/{id}, auth on vs off", deno, { STORE_URL: "memory:" });
  }
  if (!ONLY || ONLY === "node") {
    await figure("Node bundle, memory store: GET /tasks/{id}, auth on vs off", node, { STORE_URL: "memory:" });
  }
  if (!ONLY || ONLY === "redis") {
    await figure(
      "Deno, Redis store: GET /tasks/{id}, auth on vs off (CPU: server + redis-server)",
      deno,
      { STORE_URL: redis.url, STORE_KEY_PREFIX: `auth-bench-${crypto.randomUUID()}:` },
      redisCpu,
    );
  }
} finally {
  await Deno.remove(dir, { recursive: true });
  await Deno.remove(file);
}
console.log(lines.join("\n"));
