/**
 * Many channels on one server process: `--subscribers` raw SSE connections spread over
 * `--channels` session streams (10 per channel by default), while a `spray` task appends
 * `--rate` token events a second to the channels in turn for `--seconds`. Reports the Redis
 * connections the server holds (`INFO clients`, peak), the server's RSS (idle, with the
 * subscribers, peak), delivery latency p50/p99 over every frame, and CPU of the server, this
 * load generator and redis-server, and the server's CPU per frame.
 *
 * Backends: `redis`, `memory` (the service on Deno), `floor` (`stream_floor_server.ts`: a bare
 * `Deno.serve` writing the same frames, encoded once, to the same sockets), and `node-redis`,
 * `node-memory`, `node-floor` (the same on Node, built into a temporary folder first). Each round
 * runs the backends in the order given; `--rounds` repeats them, so candidates and the floor
 * interleave on a shared machine. A frame is on time when it arrives within 50 ms of its emit.
 *
 * `deno run -A bench/stream_channels_bench.ts [--channels 1000] [--subscribers 10000] [--rate 1000]
 * [--seconds 30] [--backends redis,memory] [--rounds 1] [--server <stream_server.ts of another checkout>]
 * [--profile <folder for the Deno servers' CPU profiles>]`.
 * Needs `ulimit -n` above the subscribers (both processes hold one descriptor per subscriber).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { startRedis } from "../testing/redis_server.ts";
import { cpuSeconds } from "./process_cpu.ts";
import { type Entry, Histogram, post, redisClients, rssKb, startBenchServer, STREAM_SERVER } from "./stream_common.ts";
import { bundle } from "../tools/bundle.ts";
import { sleep } from "../lib/time/mod.ts";

const { values } = parseArgs({
  options: {
    channels: { type: "string", default: "1000" },
    subscribers: { type: "string", default: "10000" },
    rate: { type: "string", default: "1000" },
    seconds: { type: "string", default: "30" },
    backends: { type: "string", default: "redis,memory" },
    rounds: { type: "string", default: "1" },
    /** A folder for a V8 CPU profile of each server run (with a markdown summary on Deno). */
    profile: { type: "string" },
    server: { type: "string", default: STREAM_SERVER },
    /** `deno` (the subscribers in this process) or `c` (`sse_client.c`, compiled with gcc: a fraction of the CPU). */
    client: { type: "string", default: "deno" },
  },
});
const CHANNELS = Number(values.channels), SUBSCRIBERS = Number(values.subscribers);
const RATE = Number(values.rate), COUNT = RATE * Number(values.seconds);
const mb = (kb: number) => (kb / 1024).toFixed(0);

/** Subscribers that were refused (a 503 while the store was slow to answer) and tried again. */
let refusals = 0;

/** One subscriber on a raw connection: counts its token frames and their latency; resolves with the count. */
async function subscribe(
  hostname: string,
  port: number,
  channel: number,
  histogram: Histogram,
  expected: number,
  connected: () => void,
): Promise<number> {
  // A buffer at a time, one decode per read and one regex scan: the generator must cost less than the server.
  const TOKEN = /event: token\ndata: \{[^\n]*"message":"([\d.]+)"/g;
  const buffer = new Uint8Array(16_384);
  for (;;) {
    const conn = await Deno.connect({ hostname, port });
    await conn.write(
      new TextEncoder().encode(`GET /sessions/s${channel}/stream?replay=false HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`),
    );
    const decoder = new TextDecoder();
    let text = "";
    let ready = false;
    let got = 0;
    for (let n = await conn.read(buffer); n !== null; n = await conn.read(buffer)) {
      const now = performance.timeOrigin + performance.now();
      text += decoder.decode(buffer.subarray(0, n), { stream: true });
      if (!ready) {
        if (text.length >= 12 && !text.startsWith("HTTP/1.1 200")) break; // refused: try again
        if (!text.includes("retry: 1000")) continue;
        ready = true;
        connected();
      }
      let consumed = 0;
      for (const match of text.matchAll(TOKEN)) {
        histogram.add(now - Number(match[1]));
        got++;
        consumed = match.index! + match[0].length;
      }
      if (got >= expected) break;
      const boundary = text.lastIndexOf("\n\n");
      text = text.slice(Math.max(consumed, boundary < 0 ? 0 : boundary + 2));
    }
    conn.close();
    if (ready) return got;
    refusals++;
    await sleep(100);
  }
}

/** A frame count per channel: the events spread over the channels in turn. */
const perChannel = (c: number) => Math.floor(COUNT / CHANNELS) + (c < COUNT % CHANNELS ? 1 : 0);

/** Subscribers with every stream open; `done()` once each has every frame of its channel. */
interface Subscribers {
  /** The process whose CPU is the load generator's. */
  readonly pid: number;
  done(): Promise<{ delivered: number; p50: number; p99: number; onTime: number; clientCpu?: number }>;
}

/** The subscribers in this process. */
async function denoSubscribers(hostname: string, port: number): Promise<Subscribers> {
  const histogram = new Histogram();
  let connected = 0;
  let allConnected!: () => void;
  const ready = new Promise<void>((resolve) => allConnected = resolve);
  const subscribers: Promise<number>[] = [];
  for (let i = 0; i < SUBSCRIBERS; i += 500) { // under the listen backlog
    const batch = Array.from({ length: Math.min(500, SUBSCRIBERS - i) }, (_, k) => {
      const channel = (i + k) % CHANNELS;
      return subscribe(hostname, port, channel, histogram, perChannel(channel), () => {
        if (++connected === SUBSCRIBERS) allConnected();
      });
    });
    subscribers.push(...batch);
    while (connected < i + batch.length) await sleep(10);
  }
  await ready;
  return {
    pid: Deno.pid,
    async done() {
      const delivered = (await Promise.all(subscribers)).reduce((a, b) => a + b, 0);
      return {
        delivered,
        p50: histogram.quantile(0.5),
        p99: histogram.quantile(0.99),
        onTime: histogram.countBelow(50),
      };
    },
  };
}

let cClient: string | undefined;

/** The subscribers in `sse_client.c` (compiled once with gcc), a process of their own. */
async function cSubscribers(hostname: string, port: number): Promise<Subscribers> {
  if (!cClient) {
    cClient = await Deno.makeTempFile({ prefix: "sse-client-" });
    const source = new URL("./sse_client.c", import.meta.url).pathname;
    const built = await new Deno.Command("gcc", { args: ["-O2", "-o", cClient, source] }).output();
    if (!built.success) throw new Error(`gcc ${source}: ${new TextDecoder().decode(built.stderr)}`);
  }
  const timeout = String(Number(values.seconds) * 4 + 60);
  const args = [hostname, String(port), String(SUBSCRIBERS), String(CHANNELS), String(COUNT), timeout];
  const child = new Deno.Command(cClient, { args, stdout: "piped" }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const line = async () => {
    while (!text.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error(`sse_client ended early: ${text}`);
      text += value;
    }
    const at = text.indexOf("\n");
    const first = text.slice(0, at);
    text = text.slice(at + 1);
    return first;
  };
  if (await line() !== "READY") throw new Error(`sse_client: ${text}`);
  return {
    pid: child.pid,
    async done() {
      const result = JSON.parse(await line());
      await child.status;
      return {
        delivered: result.delivered,
        p50: result.p50,
        p99: result.p99,
        onTime: result.on_time,
        clientCpu: result.cpu,
      };
    },
  };
}

async function run(
  backend: string,
  env: Record<string, string>,
  entry: Entry,
  redis?: { port: number; pid: number },
) {
  refusals = 0;
  // The subscribers and the bench's own requests: the service's default MAX_CONNECTIONS (10,000) is the default load.
  const server = await startBenchServer({ MAX_CONNECTIONS: String(SUBSCRIBERS + 100), ...env }, entry);
  const clientsNow = () => redis ? redisClients(redis.port) : Promise.resolve(0);
  try {
    const spray = await post(`${server.url}/tasks`, {
      kind: "spray",
      input: { sessions: CHANNELS, count: COUNT, per_second: RATE },
    });
    await sleep(500);
    const idleRss = rssKb(server.pid);
    const idleClients = await clientsNow();
    const { hostname, port } = new URL(server.url);
    const started = performance.now();
    const clients = values.client === "c"
      ? await cSubscribers(hostname, Number(port))
      : await denoSubscribers(hostname, Number(port));
    const connectMs = performance.now() - started;
    await sleep(1_000);
    const subscribedRss = rssKb(server.pid);
    let peakRss = subscribedRss;
    let peakClients = await clientsNow();
    const sampler = setInterval(async () => {
      peakRss = Math.max(peakRss, rssKb(server.pid));
      peakClients = Math.max(peakClients, await clientsNow());
    }, 250);
    const cpu0 = {
      server: await cpuSeconds(server.pid),
      client: await cpuSeconds(clients.pid),
      redis: redis ? await cpuSeconds(redis.pid) : 0,
    };
    const t0 = performance.now();
    await post(`${server.url}/tasks/${spray.task_id}/input`, { input: "go" });
    const { delivered, p50, p99, onTime, clientCpu } = await clients.done();
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    const cpu = {
      server: await cpuSeconds(server.pid) - cpu0.server,
      client: (clientCpu ?? await cpuSeconds(clients.pid)) - cpu0.client,
      redis: redis ? await cpuSeconds(redis.pid) - cpu0.redis : 0,
    };
    const expected = Array.from({ length: SUBSCRIBERS }, (_, i) => perChannel(i % CHANNELS)).reduce((a, b) => a + b, 0);
    console.log(
      `${backend}: ${CHANNELS} channels, ${SUBSCRIBERS} subscribers, ${COUNT} events at ${RATE}/s: ` +
        `delivered ${delivered} of ${expected} frames in ${seconds.toFixed(1)} s; ` +
        `latency p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms; ` +
        (redis ? `Redis clients: ${idleClients} idle, ${peakClients} peak; ` : "") +
        `server RSS ${mb(idleRss)} MB idle → ${mb(subscribedRss)} MB subscribed → ${mb(peakRss)} MB peak; ` +
        `subscribers connected in ${connectMs.toFixed(0)} ms (${refusals} refused and tried again); CPU: server ${
          cpu.server.toFixed(1)
        } s, ` +
        `load generator (${values.client}) ${cpu.client.toFixed(1)} s` +
        (redis ? `, redis-server ${cpu.redis.toFixed(1)} s` : "") +
        `; ${(cpu.server * 1e6 / delivered).toFixed(2)} µs server CPU per frame; ` +
        `${(delivered / seconds).toFixed(0)} frames/s, ${(onTime / seconds).toFixed(0)} of them on time (≤ 50 ms)`,
    );
  } finally {
    await server.stop();
  }
}

const FLOOR = new URL("./stream_floor_server.ts", import.meta.url).pathname;
const backends = values.backends.split(",");
let nodeDir: string | undefined;
if (backends.some((b) => b.startsWith("node-"))) {
  nodeDir = await Deno.makeTempDir({ prefix: "stream-channels-bench-" });
  await bundle(["bench/stream_server.ts", "bench/stream_floor_server.ts"], nodeDir);
}
const onDeno = (path: string): Entry =>
  values.profile ? [Deno.execPath(), "run", "-A", `--cpu-prof-dir=${values.profile}`, "--cpu-prof-md", path] : path;
const onNode = (path: string): Entry =>
  values.profile ? ["node", "--cpu-prof", `--cpu-prof-dir=${values.profile}`, path] : ["node", path];
const entries: Record<string, Entry> = {
  "": onDeno(values.server),
  floor: onDeno(FLOOR),
  ...(nodeDir &&
    { "node-": onNode(`${nodeDir}/stream_server.js`), "node-floor": onNode(`${nodeDir}/stream_floor_server.js`) }),
};
try {
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const backend of backends) {
      const node = backend.startsWith("node-");
      const store = node ? backend.slice(5) : backend;
      if (store === "floor") {
        await run(backend, {}, entries[backend]);
      } else if (store === "memory") {
        await run(backend, { STORE_URL: "memory:" }, entries[node ? "node-" : ""]);
      } else {
        await using redis = await startRedis();
        await run(backend, { STORE_URL: redis.url }, entries[node ? "node-" : ""], redis);
      }
    }
  }
} finally {
  if (nodeDir) await Deno.remove(nodeDir, { recursive: true });
}
