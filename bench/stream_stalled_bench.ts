/**
 * Stalled readers: `--stalled` raw SSE connections to one busy session that read nothing,
 * while demo tasks in that session emit `--tokens` tokens of `--pad` characters each, one task
 * every `--every` ms for `--seconds`. Reports the server's RSS before, peak and at the end, the
 * same for a control run with no stalled reader (the store's own growth under the same load),
 * and how many stalled readers the server cut off (their last frame is the cut-off comment).
 *
 * `deno run -A bench/stream_stalled_bench.ts [--stalled 100] [--rounds 3] [--backends memory,redis,node]
 * [--server <stream_server.ts of another checkout>]`
 *
 * @module
 */
import { parseArgs } from "node:util";
import { startRedis } from "../testing/redis_server.ts";
import { bundleAll } from "../tools/bundle.ts";
import { cpuSeconds } from "./process_cpu.ts";
import { type Entry, post, rssKb, startBenchServer, STREAM_SERVER } from "./stream_common.ts";
import { sleep } from "../lib/time/mod.ts";

const { values } = parseArgs({
  options: {
    stalled: { type: "string", default: "100" },
    tokens: { type: "string", default: "200" },
    pad: { type: "string", default: "500" },
    every: { type: "string", default: "200" },
    seconds: { type: "string", default: "20" },
    backends: { type: "string", default: "memory,redis,node" },
    server: { type: "string", default: STREAM_SERVER },
    rounds: { type: "string", default: "3" },
  },
});
const STALLED = Number(values.stalled);
const mb = (kb: number) => (kb / 1024).toFixed(0);

interface Outcome {
  before: number;
  opened: number;
  peak: number;
  end: number;
  cutOff: number;
  serverCpu: number;
  clientCpu: number;
}

async function load(env: Record<string, string>, entry: Entry, stalled: number, reading = false): Promise<Outcome> {
  const server = await startBenchServer(env, entry);
  try {
    const { hostname, port } = new URL(server.url);
    const session = `busy-${crypto.randomUUID()}`;
    // warm the routes up, then measure from there
    await post(`${server.url}/tasks`, { kind: "demo", input: { steps: 0, tokens: ["w"] }, session_id: session });
    await (await fetch(`${server.url}/sessions/${session}/stream?replay=false`)).body!.cancel();
    await sleep(500);
    const before = rssKb(server.pid);
    const conns = await Promise.all(Array.from({ length: stalled }, async () => {
      const conn = await Deno.connect({ hostname, port: Number(port) });
      await conn.write(new TextEncoder().encode(
        `GET /sessions/${session}/stream?replay=false HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`,
      ));
      if (reading) void drain(conn);
      return conn;
    }));
    await sleep(500);
    const opened = rssKb(server.pid);
    let peak = opened;
    const sampler = setInterval(() => peak = Math.max(peak, rssKb(server.pid)), 100);
    const cpu0 = { server: await cpuSeconds(server.pid), client: await cpuSeconds(Deno.pid) };
    const token = "x".repeat(Number(values.pad));
    const tasks: string[] = [];
    const until = performance.now() + Number(values.seconds) * 1000;
    while (performance.now() < until) {
      const task = await post(`${server.url}/tasks`, {
        kind: "demo",
        input: { steps: 0, tokens: Array(Number(values.tokens)).fill(token) },
        session_id: session,
      });
      tasks.push(task.task_id);
      await sleep(Number(values.every));
    }
    for (const id of tasks) {
      while ((await (await fetch(`${server.url}/tasks/${id}`)).json()).status === "in_progress") await sleep(50);
    }
    await sleep(2_000);
    clearInterval(sampler);
    const end = rssKb(server.pid);
    const serverCpu = await cpuSeconds(server.pid) - cpu0.server;
    const clientCpu = await cpuSeconds(Deno.pid) - cpu0.client;
    // Now read each stalled connection: a cut-off one ends with the cut-off comment.
    let cutOff = 0;
    await Promise.all(conns.map(async (conn) => {
      const tail = await readTail(conn, 2_000);
      if (/fell more than \d+ bytes behind/.test(tail)) cutOff++;
    }));
    return { before, opened, peak: Math.max(peak, end), end, cutOff, serverCpu, clientCpu };
  } finally {
    await server.stop();
  }
}

/** Reads and drops what a connection sends until it closes. */
async function drain(conn: Deno.Conn) {
  const buffer = new Uint8Array(65_536);
  try {
    while (await conn.read(buffer) !== null) { /* discard */ }
  } catch { /* closed */ }
}

/** The last 4 KB a connection sends until it ends or stays quiet for `quietMs`. */
async function readTail(conn: Deno.Conn, quietMs: number): Promise<string> {
  const buffer = new Uint8Array(65_536);
  let tail = "";
  try {
    for (;;) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const quiet = new Promise<null>((resolve) => timer = setTimeout(() => resolve(null), quietMs));
      const n = await Promise.race([conn.read(buffer), quiet]);
      clearTimeout(timer);
      if (n === null) break;
      tail = (tail + new TextDecoder().decode(buffer.subarray(0, n))).slice(-4096);
    }
  } finally {
    try {
      conn.close();
    } catch { /* closed by the server */ }
  }
  return tail;
}

/** Median of numbers. */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * `--rounds` pairs run interleaved (control with no reader, then the same load with the stalled
 * readers, then again): the cost is the median over pairs of the difference in peak RSS growth,
 * with the smallest beside it (RSS peaks move by tens of MB with the collector's timing). One
 * run with readers that keep up shows what serving them costs without the stall.
 */
async function bench(name: string, env: Record<string, string>, entry: Entry = values.server) {
  const growth = (o: Outcome) => o.peak - o.before;
  const costs: number[] = [];
  let stalled!: Outcome;
  for (let round = 0; round < Number(values.rounds); round++) {
    const control = await load(env, entry, 0);
    stalled = await load(env, entry, STALLED);
    costs.push(growth(stalled) - growth(control));
    const cpu = `CPU server ${stalled.serverCpu.toFixed(1)} s (control ${control.serverCpu.toFixed(1)} s), ` +
      `load generator ${stalled.clientCpu.toFixed(1)} s`;
    console.log(
      `  round ${round + 1}: control ${mb(control.before)} → ${mb(control.peak)} MB peak; stalled ` +
        `${mb(stalled.before)} → ${mb(stalled.opened)} opened → ${mb(stalled.peak)} MB peak; ${stalled.cutOff} of ` +
        `${STALLED} cut off; ${cpu}`,
    );
  }
  const control = await load(env, entry, 0);
  const reading = await load(env, entry, STALLED, true);
  const cost = median(costs);
  console.log(
    `${name}: ${STALLED} stalled readers cost ${mb(cost)} MB at peak (${(cost / STALLED).toFixed(0)} KB each; ` +
      `median of ${costs.length} pairs, smallest ${mb(Math.min(...costs))} MB); ${STALLED} readers that keep up ` +
      `cost ${mb(growth(reading) - growth(control))} MB`,
  );
}

for (const backend of values.backends.split(",")) {
  if (backend === "memory") await bench("Deno, memory store", { STORE_URL: "memory:" });
  else if (backend === "redis") {
    await using redis = await startRedis();
    await bench("Deno, Redis", { STORE_URL: redis.url });
  } else if (backend === "node") {
    const dir = await Deno.makeTempDir({ prefix: "stalled-bench-" });
    try {
      await bundleAll(dir);
      await bench("Node bundle, memory store", { STORE_URL: "memory:" }, ["node", `${dir}/server.mjs`]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
}
