/**
 * A2A and webhooks against the service's own API, on one server per store, each comparison as
 * interleaved pairs (A, B, B, A, …) reported as the median of the pairs' ratios with the best
 * beside it:
 *
 * 1. `GetTask` over JSON-RPC against `GET /tasks/{id}`: server CPU per request (wrk, one POST
 *    body formatted once against one GET), target ≤ 1.25×;
 * 2. `SendStreamingMessage` of a 2,000-token task against `POST /tasks` and its own stream:
 *    server CPU per frame, target ≤ 1.2×;
 * 3. 1,000 task completions with a webhook each, delivered to a receiver in this process: all
 *    delivered, the p99 from the task's end to the receiver ≤ 200 ms, Redis CPU per delivery.
 *
 * Run: `deno run -A bench/a2a_bench.ts` (needs wrk, redis-server). `BENCH_SECONDS` (default 3)
 * per wrk run, `BENCH_PAIRS` (default 5), `BENCH_ONLY` (`get`, `stream` or `webhooks`) one part.
 *
 * @module
 */
import { startRedis } from "../testing/redis_server.ts";
import { type ServerProcess, startServer } from "../testing/server_process.ts";
import { startReceiver } from "../testing/webhook_receiver.ts";
import { until } from "../testing/until.ts";
import { type Load, load, median, ratio, rounds } from "./load.ts";
import { CLOCK_TICKS, cpuSeconds } from "./process_cpu.ts";
import { redisPid } from "./redis_info.ts";

const root = new URL("..", import.meta.url).pathname;
const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 3);
const PAIRS = Number(Deno.env.get("BENCH_PAIRS") ?? 5);
/** `get`, `stream` or `webhooks`: only that part. */
const ONLY = Deno.env.get("BENCH_ONLY");
const runs = (part: string) => ONLY === undefined || ONLY === part;
const FIXED = new URL("./wrk_fixed.lua", import.meta.url).pathname;
const fixed = (n: number, digits = 2) => n.toFixed(digits);
const say = (line: string) => console.log(line);
const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");

await using redis = await startRedis();
const redisProcess = await redisPid(redis.port);
const server = [Deno.execPath(), "run", "-A", `${root}server/main.ts`];
const receiverEnv = { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_HOSTS: "127.0.0.1" };
await using memory = await startServer(server, { STORE_URL: "memory:", ...receiverEnv });
await using onRedis = await startServer(server, { STORE_URL: redis.url, ...receiverEnv });

const post = async (url: string, body: unknown) =>
  await (await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  }))
    .json();

/** This process's CPU seconds (the load generator's, for the streams and the receiver). */
const ownCpu = () => cpuSeconds(Deno.pid);

// 1. GetTask over JSON-RPC against GET /tasks/{id}.
for (const [label, target] of runs("get") ? [["memory", memory], ["Redis", onRedis]] as const : []) {
  const task = await post(`${target.url}/tasks`, {
    kind: "demo",
    input: { steps: 3, delay_ms: 0, tokens: ["a", "b"] },
  });
  await until(
    "the task is done",
    async () => (await (await fetch(`${target.url}/tasks/${task.task_id}`)).json()).status === "done",
  );
  const rpc = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: task.task_id } });
  const run = (url: string, script: string, env: Record<string, string> = {}) => () =>
    load({ url, seconds: SECONDS, pids: [target.pid], threads: 1, connections: 20, script, env });
  // Besides the figure the target is for, where the difference lies: the A2A GET of the HTTP+JSON
  // binding against the same GET, and JSON-RPC against a POST of our own API with a JSON body
  // (cancelling the finished task: a store call and a small answer).
  const [a2a, a2aRest, rest, restPost] = await rounds([
    run(`${target.url}/a2a/jsonrpc`, FIXED, { WRK_BODY: rpc }),
    run(`${target.url}/a2a/rest/tasks/${task.task_id}`, FIXED),
    run(`${target.url}/tasks/${task.task_id}`, FIXED),
    run(`${target.url}/tasks/${task.task_id}/cancel`, FIXED, { WRK_BODY: "{}" }),
  ], PAIRS);
  const med = (loads: readonly Load[], pick: (l: Load) => number) => fixed(median(loads.map(pick)), 1);
  say(`GetTask over A2A vs GET /tasks/{id}, ${label} store (${PAIRS} rounds of ${SECONDS} s, 20 connections)`);
  const subjects = [
    ["JSON-RPC GetTask", a2a],
    ["GET /a2a/rest/tasks/{id}", a2aRest],
    ["GET /tasks/{id}", rest],
    ["POST /tasks/{id}/cancel {}", restPost],
  ] as const;
  for (const [name, loads] of subjects) {
    say(
      `  ${name}: ${med(loads, (l) => l.rps)} req/s, p99 ${med(loads, (l) => l.p99Ms)} ms, server CPU ` +
        `${med(loads, (l) => l.cpuUs)} µs/req (wrk ${med(loads, (l) => l.clientCpuUs)}), non-2xx ${
          loads.reduce((n, l) => n + l.non2xx, 0)
        }`,
    );
  }
  const cpu = (candidate: Load[], baseline: Load[]) => ratio({ candidate, baseline }, (l) => l.cpuUs, "min");
  const r = cpu(a2a, rest);
  say(
    `  → server CPU per request, JSON-RPC GetTask ÷ GET /tasks/{id}: ${fixed(r.median)}× (best ${fixed(r.best)}×), ` +
      `target ≤ 1.25×: ${verdict(r.median <= 1.25)}`,
  );
  const same = cpu(a2aRest, rest);
  say(`  → GET /a2a/rest/tasks/{id} ÷ GET /tasks/{id}: ${fixed(same.median)}× (best ${fixed(same.best)}×)`);
  const posts = cpu(a2a, restPost);
  say(`  → JSON-RPC GetTask ÷ POST /tasks/{id}/cancel: ${fixed(posts.median)}× (best ${fixed(posts.best)}×)`);
}

// 2. SendStreamingMessage of a 2,000-token task against POST /tasks and its stream.
const TOKENS = Array.from({ length: 2_000 }, (_, i) => `t${i} `);
/**
 * Reads an SSE stream with curl to its end: how many `data:` lines it had, and the CPU seconds
 * curl and grep used (the shell's children: `cutime` and `cstime`), so that the reader is cheap
 * and its cost is known.
 */
async function frames(curlArgs: string[]): Promise<{ count: number; cpu: number }> {
  const out = await new Deno.Command("sh", {
    args: ["-c", 'curl -sN "$@" | grep -c "^data: "; cat /proc/$$/stat', "sh", ...curlArgs],
    stdout: "piped",
  }).output();
  const [count, stat] = new TextDecoder().decode(out.stdout).trim().split("\n");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { count: Number(count), cpu: (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS };
}
interface StreamRun {
  readonly frames: number;
  readonly cpuUsPerFrame: number;
  readonly clientUsPerFrame: number;
}
/** CPU time is read in 10 ms ticks: each run streams the task this many times, so a run is hundreds of ticks. */
const STREAMS_PER_RUN = 10;
const streamRun = (target: ServerProcess, a2a: boolean) => async (): Promise<StreamRun> => {
  const input = { steps: 0, delay_ms: 0, tokens: TOKENS };
  const before = await cpuSeconds(target.pid);
  let count = 0;
  let reader = 0;
  for (let i = 0; i < STREAMS_PER_RUN; i++) {
    let read: { count: number; cpu: number };
    if (a2a) {
      const body = {
        message: {
          messageId: crypto.randomUUID(),
          role: "ROLE_USER",
          parts: [{ data: input }],
          metadata: { skill: "demo" },
        },
      };
      const headers = ["-H", "content-type: application/json", "-d", JSON.stringify(body)];
      read = await frames([...headers, `${target.url}/a2a/rest/message:stream`]);
    } else {
      const task = await post(`${target.url}/tasks`, { kind: "demo", input });
      read = await frames([`${target.url}/tasks/${task.task_id}/stream`]);
    }
    count += read.count;
    reader += read.cpu;
  }
  const after = await cpuSeconds(target.pid);
  return {
    frames: count / STREAMS_PER_RUN,
    cpuUsPerFrame: (after - before) * 1e6 / count,
    clientUsPerFrame: reader * 1e6 / count,
  };
};
for (const [label, target] of runs("stream") ? [["memory", memory], ["Redis", onRedis]] as const : []) {
  const [a2a, own] = await rounds([streamRun(target, true), streamRun(target, false)], PAIRS);
  const pick = (runs: StreamRun[], f: (r: StreamRun) => number) => fixed(median(runs.map(f)), 1);
  say(`SendStreamingMessage vs POST /tasks + GET /tasks/{id}/stream, 2,000 tokens, ${label} store (${PAIRS} pairs)`);
  say(
    `  A2A: ${a2a[0].frames} frames, server CPU ${pick(a2a, (r) => r.cpuUsPerFrame)} µs/frame (reader ${
      pick(a2a, (r) => r.clientUsPerFrame)
    })`,
  );
  say(
    `  own: ${own[0].frames} frames, server CPU ${pick(own, (r) => r.cpuUsPerFrame)} µs/frame (reader ${
      pick(own, (r) => r.clientUsPerFrame)
    })`,
  );
  const r = ratio({ candidate: a2a, baseline: own }, (x) => x.cpuUsPerFrame, "min");
  say(
    `  → server CPU per frame, A2A ÷ own: ${fixed(r.median)}× (best ${fixed(r.best)}×), target ≤ 1.2×: ${
      verdict(r.median <= 1.2)
    }`,
  );
}

// 3. 1,000 completions with a webhook each, on Redis.
if (runs("webhooks")) {
  await using receiver = startReceiver();
  const COUNT = 1_000;
  const lags: number[] = [];
  receiver.answer = (got) => {
    lags.push(got.at - Date.parse(JSON.parse(got.body).timestamp));
    return 204;
  };
  const [redisBefore, serverBefore, ownBefore] = [
    await cpuSeconds(redisProcess),
    await cpuSeconds(onRedis.pid),
    await ownCpu(),
  ];
  const started = Date.now();
  for (let i = 0; i < COUNT; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, COUNT - i) }, () =>
      post(`${onRedis.url}/tasks`, {
        kind: "demo",
        input: { steps: 0, delay_ms: 0 },
        webhook: { url: `${receiver.url}/hook`, events: ["done"] },
      })));
  }
  await until("every delivery arrives", () => receiver.received.length >= COUNT, 120_000);
  const seconds = (Date.now() - started) / 1000;
  const [redisAfter, serverAfter, ownAfter] = [
    await cpuSeconds(redisProcess),
    await cpuSeconds(onRedis.pid),
    await ownCpu(),
  ];
  const sorted = lags.toSorted((a, b) => a - b);
  const p = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const unique = new Set(receiver.received.map((r) => r.id)).size;
  say(`1,000 task completions with a webhook each, Redis store (${fixed(seconds, 1)} s)`);
  say(
    `  delivered ${unique} of ${COUNT} (${receiver.received.length} requests); end → receiver p50 ${p(0.5)} ms, p99 ${
      p(0.99)
    } ms, max ${sorted.at(-1)} ms: ${verdict(unique === COUNT && p(0.99) <= 200)}`,
  );
  say(
    `  CPU per delivery: Redis ${fixed((redisAfter - redisBefore) * 1e6 / COUNT, 0)} µs, server ${
      fixed((serverAfter - serverBefore) * 1e6 / COUNT, 0)
    } µs (task, webhook and delivery), this process ${fixed((ownAfter - ownBefore) * 1e6 / COUNT, 0)} µs`,
  );
}
