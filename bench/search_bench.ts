/**
 * The work of one search, and whether a tenant's slow searches hold another's.
 * `deno run -A bench/search_bench.ts [--chunks 89000] [--unique] [--server]`
 *
 * 1. In this process, the compact engine (`lib/pipelines/bm25.ts`) over `--chunks` generated
 *    chunks of ~1,000 characters (`bench/corpus.ts`): CPU per query of an outside probe's query
 *    (76 long terms that match nothing, 987 characters), of 32 such terms (the most a query may
 *    have now), of 32 misspelled words (near-spelling matching at work), and of one word. With
 *    `--unique`, each chunk also holds a word of its own (an id, a number): a vocabulary ~4× larger.
 * 2. With `--server`: a server process with tokens and two tenants; tenant A ingests the same
 *    chunks, then sends 8 searches of 32 long unmatched terms at once while A and tenant B each
 *    send a one-word search: the wall time of each and the server's CPU.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { testTokens } from "../testing/auth_tokens.ts";
import { DENO_SERVER, startServer } from "../testing/server_process.ts";
import { createBm25Engine } from "../lib/pipelines/mod.ts";
import { documentText, random, VOCABULARY, word } from "./corpus.ts";
import { cpuSeconds } from "./process_cpu.ts";

const { values } = parseArgs({
  options: {
    chunks: { type: "string", default: "89000" },
    unique: { type: "boolean", default: false },
    server: { type: "boolean", default: false },
  },
});
const CHUNKS = Number(values.chunks);

const queryRand = random(7);
/** `n` terms of 12 consonants: long, and in no chunk. */
const unmatched = (n: number) =>
  Array.from(
    { length: n },
    () => Array.from({ length: 12 }, () => "bcdfghjkmnpqrstvwxz"[Math.floor(queryRand() * 19)]).join(""),
  ).join(" ");
/** A vocabulary word with one letter after the first changed: a misspelling. */
const misspelled = () => {
  const w = VOCABULARY[Math.floor(queryRand() * 2_000)];
  const at = 1 + Math.floor(queryRand() * (w.length - 1));
  return w.slice(0, at) + (w[at] === "x" ? "y" : "x") + w.slice(at + 1);
};
const QUERIES: Record<string, string> = {
  "the probe's query: 76 long unmatched terms": unmatched(76),
  "32 long unmatched terms": unmatched(32),
  "32 misspelled words": Array.from({ length: 32 }, misspelled).join(" "),
  "one word": VOCABULARY[10],
};

const chunks = Array.from({ length: CHUNKS }, (_, i) => ({
  title: `Document ${Math.floor(i / 100)} ${word()}`,
  text: documentText(1_000) + (values.unique ? ` ref${(i * 7_919).toString(36)}` : ""),
}));

async function inProcess() {
  const engine = createBm25Engine();
  let started = performance.now();
  for (let i = 0; i < chunks.length; i += 1_000) {
    engine.add(chunks.slice(i, i + 1_000).map((c, j) => ({ id: `c${i + j}`, ...c })));
  }
  console.log(`in process: ${CHUNKS} chunks indexed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  engine.search(QUERIES["one word"], 10); // the vocabulary sorted once, as the first search after an ingest does
  for (const [name, query] of Object.entries(QUERIES)) {
    const times: number[] = [];
    const cpuBefore = await cpuSeconds(Deno.pid);
    const deadline = performance.now() + 3_000;
    while (times.length < 3 || (performance.now() < deadline && times.length < 200)) {
      started = performance.now();
      engine.search(query, 10);
      times.push(performance.now() - started);
    }
    const cpuMs = (await cpuSeconds(Deno.pid) - cpuBefore) * 1000 / times.length;
    times.sort((a, b) => a - b);
    console.log(
      `  ${name} (${query.length} characters): ${cpuMs.toFixed(1)} ms CPU per query, ` +
        `wall median ${times[times.length >> 1].toFixed(1)} ms over ${times.length} queries`,
    );
  }
}

async function throughServer() {
  const tokens = testTokens();
  const file = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(file, tokens.file);
  try {
    await using server = await startServer(DENO_SERVER, {
      SERVICE_TOKENS_FILE: file,
      BODY_LIMIT_BYTES: "20000000",
      TASK_RETENTION_SECONDS: "0",
    });
    const call = (token: string, method: string, path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    const [tenantA, tenantB] = [tokens.admin, tokens.stranger];
    // 1,000 chunks' text per document, chunk_size 1,000: about one chunk per generated chunk.
    for (let i = 0; i < chunks.length; i += 10_000) {
      const documents = [];
      for (let d = i; d < Math.min(i + 10_000, chunks.length); d += 1_000) {
        documents.push({
          title: chunks[d].title,
          source: `bench/${d}.md`,
          content: chunks.slice(d, d + 1_000).map((c) => c.text).join(""),
        });
      }
      const created = await call(tenantA, "POST", "/pipelines/run", { documents, chunk_size: 1_000 });
      if (created.status !== 201) throw new Error(`run: ${created.status} ${await created.text()}`);
      const { task_id } = await created.json();
      for (;;) {
        const task = await (await call(tenantA, "GET", `/tasks/${task_id}`)).json();
        if (task.status === "done") break;
        if (task.status !== "in_progress" && task.status !== "queued") throw new Error(`ingest ${task.status}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    await (await call(tenantB, "POST", "/pipelines/documents", { title: "B", source: "b.md", content: "Lighthouse." }))
      .body?.cancel();
    const search = async (token: string, q: string) => {
      const started = performance.now();
      const res = await call(token, "GET", `/pipelines/search?q=${encodeURIComponent(q)}`);
      const body = await res.json();
      if (res.status !== 200) throw new Error(`search: ${res.status} ${JSON.stringify(body)}`);
      return performance.now() - started;
    };
    const status = await (await call(tenantA, "GET", "/pipelines/status")).json();
    await search(tenantA, QUERIES["one word"]); // A's index has caught up
    await search(tenantB, "lighthouse");
    const probe = await call(
      tenantA,
      "GET",
      `/pipelines/search?q=${encodeURIComponent(QUERIES[Object.keys(QUERIES)[0]])}`,
    );
    console.log(`through the server: tenant A ${status.chunks} chunks; the probe's query answers ${probe.status}`);
    await probe.body?.cancel();
    const slow = QUERIES["32 long unmatched terms"];
    const cpuBefore = await cpuSeconds(server.pid);
    const started = performance.now();
    const batch = Array.from({ length: 8 }, () => search(tenantA, slow));
    const [oneA, oneB] = await Promise.all([search(tenantA, QUERIES["one word"]), search(tenantB, "lighthouse")]);
    const each = await Promise.all(batch);
    const wall = performance.now() - started;
    const cpu = (await cpuSeconds(server.pid) - cpuBefore) * 1000;
    console.log(
      `  8 searches of 32 long unmatched terms from A at once: ${wall.toFixed(0)} ms (slowest ${
        Math.max(...each).toFixed(0)
      } ms), server CPU ${cpu.toFixed(0)} ms; beside them a one-word search took ${oneA.toFixed(0)} ms for A, ` +
        `${oneB.toFixed(0)} ms for B`,
    );
  } finally {
    await Deno.remove(file);
  }
}

await inProcess();
if (values.server) await throughServer();
