/**
 * SSE fan-out: N subscribers on one task receiving M token events (delivery latency p50/p99 and
 * the server's peak RSS), and the RSS of idle streams, on the memory store and on Redis.
 * `deno run -A bench/stream_bench.ts [--subscribers 1000] [--tokens 10000] [--rate 1000] [--idle 10000]`
 *
 * @module
 */
import { parseArgs } from "node:util";
import { startRedis } from "../testing/redis_server.ts";
import { toolPath } from "../testing/tools.ts";
import { bundleAll } from "../tools/bundle.ts";
import { cpuSeconds } from "./process_cpu.ts";
import { type Entry, Histogram, post, rssKb, startBenchServer, STREAM_SERVER } from "./stream_common.ts";

const { values } = parseArgs({
  options: {
    subscribers: { type: "string", default: "1000" },
    tokens: { type: "string", default: "10000" },
    rate: { type: "string", default: "1000" },
    idle: { type: "string", default: "10000" },
    backends: { type: "string", default: "floor,memory,node,redis" },
  },
});
const SUBSCRIBERS = Number(values.subscribers), TOKENS = Number(values.tokens), RATE = Number(values.rate);
const IDLE = Number(values.idle);
const SERVER = STREAM_SERVER;
const FLOOR = new URL("./idle_floor_server.ts", import.meta.url).pathname;

async function fanOut(backend: string, env: Record<string, string>) {
  const server = await startBenchServer(env);
  try {
    const task = await post(`${server.url}/tasks`, { kind: "ticker", input: { count: TOKENS, per_second: RATE } });
    const idleRss = rssKb(server.pid);
    const histogram = new Histogram();
    let ready = 0;
    let allReady!: () => void;
    const readyAll = new Promise<void>((r) => allReady = r);
    const { hostname, port } = new URL(server.url);
    const request = new TextEncoder().encode(
      `GET /tasks/${task.task_id}/stream?events=token,input_required,done HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`,
    );
    // A raw connection read a buffer at a time, one decode per read: the load generator must cost
    // less than the server it measures (fetch's body stream cost ~55 µs per frame here, more than
    // the server's ~34). Token frames are `event: token` + `data: {…"message":"<emit time>"}`; the
    // regex skips the chunked encoding's size lines between frames.
    const TOKEN = /event: token\ndata: \{[^\n]*"message":"([\d.]+)"/g;
    const subscriber = async () => {
      const conn = await Deno.connect({ hostname, port: Number(port) });
      await conn.write(request);
      const decoder = new TextDecoder();
      const buffer = new Uint8Array(65_536);
      let text = "";
      let counted = false;
      let got = 0;
      for (let n = await conn.read(buffer); n !== null; n = await conn.read(buffer)) {
        const now = performance.timeOrigin + performance.now();
        text += decoder.decode(buffer.subarray(0, n), { stream: true });
        let consumed = 0;
        for (const match of text.matchAll(TOKEN)) {
          histogram.add(now - Number(match[1]));
          got++;
          consumed = match.index! + match[0].length;
        }
        if (!counted && text.includes("event: input_required")) {
          counted = true;
          consumed = Math.max(consumed, text.indexOf("event: input_required") + 21);
          if (++ready === SUBSCRIBERS) allReady();
        }
        if (text.includes("event: done")) break;
        // Keep only an unfinished frame for the next read, never one already counted.
        const boundary = text.lastIndexOf("\n\n");
        text = text.slice(Math.max(consumed, boundary < 0 ? 0 : boundary + 2));
      }
      conn.close();
      return got;
    };
    const started = performance.now();
    const subs = Array.from({ length: SUBSCRIBERS }, subscriber);
    await readyAll;
    const connectMs = performance.now() - started;
    let peak = rssKb(server.pid);
    const sampler = setInterval(() => peak = Math.max(peak, rssKb(server.pid)), 100);
    const t0 = performance.now();
    const cpu0 = { server: await cpuSeconds(server.pid), client: await cpuSeconds(Deno.pid) };
    await post(`${server.url}/tasks/${task.task_id}/input`, { input: "go" });
    const counts = await Promise.all(subs);
    const seconds = (performance.now() - t0) / 1000;
    const serverCpu = await cpuSeconds(server.pid) - cpu0.server;
    const clientCpu = await cpuSeconds(Deno.pid) - cpu0.client;
    clearInterval(sampler);
    const delivered = counts.reduce((a, b) => a + b, 0);
    console.log(
      `${backend}: ${SUBSCRIBERS} subscribers × ${TOKENS} tokens at ${RATE}/s: delivered ${delivered} ` +
        `(${delivered === SUBSCRIBERS * TOKENS ? "all" : "MISSING SOME"}) in ${seconds.toFixed(1)} s; ` +
        `latency p50 ${histogram.quantile(0.5).toFixed(1)} ms, p99 ${histogram.quantile(0.99).toFixed(1)} ms; ` +
        `server RSS ${(idleRss / 1024).toFixed(0)} MB before, peak ${(peak / 1024).toFixed(0)} MB; ` +
        `subscribers connected in ${connectMs.toFixed(0)} ms; CPU: server ${serverCpu.toFixed(1)} s, ` +
        `this client ${clientCpu.toFixed(1)} s (${
          (serverCpu * 1e6 / Math.max(1, delivered)).toFixed(1)
        } µs of server ` +
        `CPU per delivered frame)`,
    );
  } finally {
    await server.stop();
  }
}

/** A task that waits (for input) while its streams stay idle. */
const WAITING_TICKER: { kind: string; input: Record<string, unknown> } = {
  kind: "ticker",
  input: { count: 1, per_second: 1 },
};

async function idleStreams(
  backend: string,
  env: Record<string, string>,
  entry: Entry = SERVER,
  waiting = WAITING_TICKER,
) {
  if (IDLE === 0) return;
  const server = await startBenchServer(env, entry);
  try {
    const task = await post(`${server.url}/tasks`, waiting);
    // warm up the route and the follower machinery, then measure from there
    const warm = await Promise.all(
      Array.from({ length: 100 }, () => fetch(`${server.url}/tasks/${task.task_id}/stream`)),
    );
    for (const res of warm) await res.body!.cancel();
    await new Promise((r) => setTimeout(r, 500));
    const before = rssKb(server.pid);
    const controllers: AbortController[] = [];
    const readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
    for (let i = 0; i < IDLE; i += 500) {
      const batch = await Promise.all(Array.from({ length: Math.min(500, IDLE - i) }, async () => {
        const controller = new AbortController();
        controllers.push(controller);
        const res = await fetch(`${server.url}/tasks/${task.task_id}/stream`, { signal: controller.signal });
        const reader = res.body!.getReader();
        await reader.read(); // retry frame
        return reader;
      }));
      readers.push(...batch);
    }
    await new Promise((r) => setTimeout(r, 1_000));
    const after = rssKb(server.pid);
    console.log(
      `${backend}: ${IDLE} idle streams: server RSS ${(before / 1024).toFixed(0)} → ${(after / 1024).toFixed(0)} MB, ` +
        `${((after - before) / IDLE).toFixed(1)} KB per stream`,
    );
    for (const reader of readers) await reader.cancel().catch(() => {});
  } finally {
    await server.stop();
  }
}

for (const backend of values.backends.split(",")) {
  if (backend === "floor") {
    await idleStreams("floor (bare Deno.serve, no Hono or store)", {}, FLOOR);
  } else if (backend === "memory") {
    await fanOut("memory", { STORE_URL: "memory:" });
    await idleStreams("memory", { STORE_URL: "memory:" });
  } else if (backend === "node") {
    // The Node bundle has no ticker kind: a demo task waiting for input holds its streams idle.
    const dir = await Deno.makeTempDir({ prefix: "stream-bench-" });
    try {
      await bundleAll(dir);
      await idleStreams("memory, Node bundle", { STORE_URL: "memory:" }, ["node", `${dir}/server.mjs`], {
        kind: "demo",
        input: { steps: 0, ask: "waiting" },
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  } else if (backend === "redis") {
    if (!toolPath("redis-server")) {
      console.log("redis: skipped (redis-server is not installed)");
      continue;
    }
    await using redis = await startRedis();
    await fanOut("redis", { STORE_URL: redis.url });
    await idleStreams("redis", { STORE_URL: redis.url });
  }
}
