/**
 * Pipelines: ingest of generated text through `POST /pipelines/run` into a real server process
 * (memory store, then Redis), then `GET /pipelines/search` latency over the resulting index, and
 * the server's RSS. Targets: ingest ≥ 20 MB/s on memory and ≥ 10 MB/s on Redis;
 * search p99 ≤ 20 ms at 100,000 chunks.
 * `deno run -A --v8-flags=--expose-gc bench/pipelines_bench.ts [--mb 100] [--chunk-size 1000] [--queries 2000] [--backends memory,redis,node]`
 *
 * @module
 */
import { parseArgs } from "node:util";
import { startRedis } from "../testing/redis_server.ts";
import { DENO_SERVER, startServer } from "../testing/server_process.ts";
import { bundleAll } from "../tools/bundle.ts";
import { createSearchIndex, prepareDocument } from "../lib/pipelines/mod.ts";
import { createMemoryStore, openStore } from "../lib/store/mod.ts";
import { documentText, rand, random, VOCABULARY, word } from "./corpus.ts";

const { values } = parseArgs({
  options: {
    mb: { type: "string", default: "100" },
    "chunk-size": { type: "string", default: "1000" },
    queries: { type: "string", default: "2000" },
    backends: { type: "string", default: "breakdown,memory,redis" },
    "doc-kb": { type: "string", default: "100" },
    "docs-per-request": { type: "string", default: "10" },
    parallel: { type: "string", default: "4" },
  },
});
const MB = Number(values.mb), CHUNK = Number(values["chunk-size"]), QUERIES = Number(values.queries);
const DOC_BYTES = Number(values["doc-kb"]) * 1024, PER_REQUEST = Number(values["docs-per-request"]);
const PARALLEL = Number(values.parallel);

function rssMb(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024; // 0 once it has exited
}

/** With `--v8-flags=--expose-gc`, heap figures exclude garbage. */
const gc = (globalThis as { gc?: () => void }).gc;
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

async function waitDone(url: string, taskId: string) {
  for (;;) {
    const task = await (await fetch(`${url}/tasks/${taskId}`)).json();
    if (task.status === "done") return task;
    if (task.status !== "in_progress") throw new Error(`task ${taskId} ended ${task.status}: ${task.error}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function run(backend: string, env: Record<string, string>, command = DENO_SERVER) {
  await using server = await startServer(command, {
    ...env,
    BODY_LIMIT_BYTES: String(PER_REQUEST * DOC_BYTES * 2 + 65_536),
    TASK_RETENTION_SECONDS: "0",
  });
  const requests = Math.ceil((MB * 1024 * 1024) / (DOC_BYTES * PER_REQUEST));
  // Bodies are built before the clock starts: the bench measures the service, not the generator.
  const bodies = Array.from({ length: requests }, (_, r) =>
    JSON.stringify({
      chunk_size: CHUNK,
      documents: Array.from({ length: PER_REQUEST }, (_, d) => ({
        title: `Document ${r}-${d} ${word()} ${word()}`,
        source: `bench/${r}/${d}.md`,
        content: documentText(DOC_BYTES),
      })),
    }));
  const totalBytes = bodies.reduce((n, b) => n + b.length, 0);
  const started = performance.now();
  let next = 0;
  let peakRss = 0;
  const sampler = setInterval(() => peakRss = Math.max(peakRss, rssMb(server.pid)), 200);
  Deno.unrefTimer(sampler);
  await Promise.all(Array.from({ length: PARALLEL }, async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const res = await fetch(`${server.url}/pipelines/run`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      if (res.status !== 201) throw new Error(`run: ${res.status} ${await res.text()}`);
      await waitDone(server.url, (await res.json()).task_id);
    }
  }));
  const ingestS = (performance.now() - started) / 1000;
  const status = await (await fetch(`${server.url}/pipelines/status`)).json();
  // The first search waits for this process's index to catch up with the last writes.
  const first = performance.now();
  await (await fetch(`${server.url}/pipelines/search?q=${word()}&k=5`)).json();
  const catchUpMs = performance.now() - first;
  const latencies: number[] = [];
  let hits = 0;
  for (let i = 0; i < QUERIES; i++) {
    const q = Array.from({ length: 1 + Math.floor(rand() * 3) }, word).join(" ");
    const t0 = performance.now();
    const res = await (await fetch(`${server.url}/pipelines/search?q=${encodeURIComponent(q)}&k=10`)).json();
    latencies.push(performance.now() - t0);
    hits += res.hits.length;
  }
  clearInterval(sampler);
  latencies.sort((a, b) => a - b);
  const rss = rssMb(server.pid);
  peakRss = Math.max(peakRss, rss);
  const mbps = totalBytes / 1024 / 1024 / ingestS;
  const target = backend === "redis" ? 10 : 20;
  console.log(
    `${backend}: ingest ${
      (totalBytes / 1024 / 1024).toFixed(1)
    } MB (${status.documents} documents, ${status.chunks} chunks) ` +
      `in ${ingestS.toFixed(1)} s = ${mbps.toFixed(1)} MB/s (target ≥ ${target}: ${
        mbps >= target ? "met" : "MISSED"
      }); ` +
      `index catch-up after ingest ${catchUpMs.toFixed(0)} ms; search over ${status.chunks} chunks: ` +
      `p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${quantile(latencies, 0.99).toFixed(1)} ms ` +
      `(target ≤ 20: ${quantile(latencies, 0.99) <= 20 ? "met" : "MISSED"}), ${
        (hits / QUERIES).toFixed(1)
      } hits/query; ` +
      `server RSS ${rss.toFixed(0)} MB (peak ${peakRss.toFixed(0)} MB)`,
  );
}

/** Where the time goes, in this process without HTTP or tasks: chunk + hash, the memory store's put, the index. */
async function breakdown() {
  const docs = Array.from({ length: Math.ceil((MB * 1024 * 1024) / DOC_BYTES) }, (_, i) => ({
    title: `Document ${i} ${word()}`,
    source: `breakdown/${i}.md`,
    content: documentText(DOC_BYTES),
  }));
  const bytes = docs.reduce((n, d) => n + d.content.length, 0) / 1024 / 1024;
  let t = performance.now();
  const prepared = [];
  for (const doc of docs) prepared.push(await prepareDocument(doc, { chunk_size: CHUNK, overlap: 0 }));
  const prepareS = (performance.now() - t) / 1000;
  const store = createMemoryStore();
  t = performance.now();
  for (const doc of prepared) await store.documents.put(doc);
  const putS = (performance.now() - t) / 1000;
  let redisPut = "";
  if (values.backends.includes("redis")) {
    await using redis = await startRedis();
    const redisStore = await openStore({ url: redis.url, prefix: "breakdown:" });
    t = performance.now();
    for (const doc of prepared) await redisStore.documents.put(doc);
    redisPut = `; Redis store put ${
      (bytes / ((performance.now() - t) / 1000)).toFixed(1)
    } MB/s (one script per document)`;
    await redisStore.close();
  }
  console.log(
    `breakdown (in process, no HTTP): ${bytes.toFixed(1)} MB; chunk + hash ${(bytes / prepareS).toFixed(1)} MB/s; ` +
      `memory store put ${(bytes / putS).toFixed(1)} MB/s${redisPut}`,
  );
  for (const engine of ["minisearch", "compact"] as const) {
    const index = createSearchIndex(store, { engine });
    gc?.();
    const used = () => Deno.memoryUsage().heapUsed + Deno.memoryUsage().external; // typed arrays are external
    const heapBefore = used();
    t = performance.now();
    await index.sync();
    const indexS = (performance.now() - t) / 1000;
    gc?.();
    const heapMb = (used() - heapBefore) / 1024 / 1024;
    const chunks = index.stats().chunks;
    const latencies: number[] = [];
    const queryRand = random(7); // the same queries for both engines
    const queryWord = () => VOCABULARY[Math.floor(VOCABULARY.length * queryRand() ** 3)];
    for (let i = 0; i < Math.min(QUERIES, 300); i++) {
      const q = Array.from({ length: 1 + Math.floor(queryRand() * 3) }, queryWord).join(" ");
      const t0 = performance.now();
      await index.search(q, 10);
      latencies.push(performance.now() - t0);
    }
    latencies.sort((a, b) => a - b);
    console.log(
      `  engine ${engine}: index build ${(bytes / indexS).toFixed(1)} MB/s (${
        (chunks / indexS).toFixed(0)
      } chunks/s, ` +
        `memory +${heapMb.toFixed(0)} MB); search over ${chunks} chunks p50 ${
          quantile(latencies, 0.5).toFixed(1)
        } ms, ` +
        `p99 ${quantile(latencies, 0.99).toFixed(1)} ms`,
    );
    index.close();
  }
}

for (const backend of values.backends.split(",")) {
  if (backend === "breakdown") await breakdown();
  else if (backend === "memory") await run("memory", { STORE_URL: "memory:" });
  else if (backend === "node") {
    const dir = await Deno.makeTempDir();
    await bundleAll(dir);
    await run("node (memory store)", { STORE_URL: "memory:" }, ["node", `${dir}/server.mjs`]);
    await Deno.remove(dir, { recursive: true });
  } else if (backend === "redis") {
    await using redis = await startRedis();
    await run("redis", { STORE_URL: redis.url, STORE_KEY_PREFIX: "bench:" });
  }
}
