/**
 * How one process should follow many Redis streams on few connections: redis-server's CPU per
 * event, and delivery latency, for
 * - `xread:<readers>`: the channels spread over `<readers>` connections, each blocked in one
 *   `XREAD BLOCK` over its share (what `lib/store/tasks/follow.ts` does);
 * - `pubsub`: every append also `PUBLISH`es the channel's name; one subscriber connection
 *   listens, and each notified channel is read with `XRANGE` after its last id;
 * - `payload`: every append `PUBLISH`es the entry itself (id, data); the subscriber reads nothing;
 * - `none`: nobody reads (the appends' own cost).
 * A producer appends `--rate` events a second to `--channels` streams in turn for `--seconds`
 * (with `XADD`, and `PUBLISH` in the same script for pubsub).
 *
 * `deno run -A bench/follow_mux_bench.ts [--channels 1000] [--rate 1000] [--seconds 10] [--modes none,xread:1,xread:4,xread:16,pubsub,payload]`
 *
 * @module
 */
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { startRedis } from "../testing/redis_server.ts";
import { cpuSeconds } from "./process_cpu.ts";
import { Histogram } from "./stream_common.ts";
import { sleep } from "../lib/time/mod.ts";

const { values } = parseArgs({
  options: {
    channels: { type: "string", default: "1000" },
    rate: { type: "string", default: "1000" },
    seconds: { type: "string", default: "10" },
    modes: { type: "string", default: "none,xread:1,xread:4,xread:16,pubsub,payload" },
  },
});
const CHANNELS = Number(values.channels), RATE = Number(values.rate), COUNT = RATE * Number(values.seconds);
const APPEND = `local id = redis.call('XADD', KEYS[1], '*', 'd', ARGV[1])
if ARGV[2] == '1' then redis.call('PUBLISH', 'n', KEYS[1]) end
if ARGV[2] == '2' then redis.call('PUBLISH', 'n', KEYS[1] .. '\t' .. id .. '\t' .. ARGV[1]) end`;

async function run(mode: string) {
  await using redis = await startRedis();
  const keys = Array.from({ length: CHANNELS }, (_, i) => `ev:${i}`);
  const last = new Map(keys.map((k) => [k, "0-0"]));
  const histogram = new Histogram();
  let received = 0;
  const take = (key: string, entries: [string, string[]][]) => {
    const now = performance.timeOrigin + performance.now();
    for (const [id, fields] of entries) {
      histogram.add(now - Number(fields[1]));
      received++;
      last.set(key, id);
    }
  };
  const connections: Redis[] = [];
  let stop = false;
  if (mode.startsWith("xread:")) {
    const readers = Number(mode.slice(6));
    for (let r = 0; r < readers; r++) {
      const conn = new Redis(redis.url);
      connections.push(conn);
      const mine = keys.filter((_, i) => i % readers === r);
      void (async () => {
        while (!stop) {
          const reply = await conn.xread(
            "COUNT",
            1000,
            "BLOCK",
            200,
            "STREAMS",
            ...mine,
            ...mine.map((k) => last.get(k)!),
          )
            .catch(() => null) as [string, [string, string[]][]][] | null;
          for (const [key, entries] of reply ?? []) take(key, entries);
        }
      })();
    }
  } else if (mode === "payload") {
    const subscriber = new Redis(redis.url);
    connections.push(subscriber);
    await subscriber.subscribe("n");
    subscriber.on("message", (_channel: string, message: string) => {
      const [key, id, data] = message.split("\t");
      take(key, [[id, ["d", data]]]);
    });
  } else if (mode === "pubsub") {
    const subscriber = new Redis(redis.url);
    const reader = new Redis(redis.url);
    connections.push(subscriber, reader);
    const reading = new Set<string>();
    const dirty = new Set<string>();
    const read = async (key: string) => {
      if (reading.has(key)) return void dirty.add(key);
      reading.add(key);
      do {
        dirty.delete(key);
        const after = last.get(key)!;
        const entries = await reader.xrange(key, `(${after}`, "+") as [string, string[]][];
        take(key, entries);
      } while (dirty.has(key));
      reading.delete(key);
    };
    await subscriber.subscribe("n");
    subscriber.on("message", (_channel: string, key: string) => void read(key));
  }
  await sleep(300);
  const producer = new Redis(redis.url);
  const publish = mode === "pubsub" ? "1" : mode === "payload" ? "2" : "0";
  const expected = mode === "none" ? 0 : COUNT;
  const cpu0 = { redis: await cpuSeconds(redis.pid), self: await cpuSeconds(Deno.pid) };
  const started = performance.now();
  for (let i = 0; i < COUNT; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    void producer.eval(APPEND, 1, keys[i % CHANNELS], String(performance.timeOrigin + performance.now()), publish);
  }
  for (let i = 0; i < 200 && received < expected; i++) await sleep(50);
  const seconds = (performance.now() - started) / 1000;
  const redisCpu = await cpuSeconds(redis.pid) - cpu0.redis;
  const selfCpu = await cpuSeconds(Deno.pid) - cpu0.self;
  stop = true;
  console.log(
    `${mode}: ${CHANNELS} channels, ${COUNT} events at ${RATE}/s: received ${received} in ${seconds.toFixed(1)} s; ` +
      `latency p50 ${histogram.quantile(0.5).toFixed(1)} ms, p99 ${histogram.quantile(0.99).toFixed(1)} ms; ` +
      `redis-server CPU ${redisCpu.toFixed(2)} s (${(redisCpu * 1e6 / COUNT).toFixed(0)} µs per event); ` +
      `this process (producer and readers) ${selfCpu.toFixed(2)} s; ${connections.length} reading connections`,
  );
  producer.disconnect();
  for (const conn of connections) conn.disconnect();
}

for (const mode of values.modes.split(",")) await run(mode);
