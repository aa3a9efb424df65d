/**
 * Pipelines in server processes (`command`), run on Deno by `pipelines_e2e_test.ts` and on the
 * Node bundle by `node_bundle_test.ts`: two processes on one redis-server give the same search
 * results after an ingest through one, and a path escaping PIPELINE_SOURCE_DIR is a 422
 * (`twoServersScenario`); with tokens and two tenants, after a redis-server restarted empty
 * every process's index finds every document written since, one tenant's slow searches do not
 * hold another tenant's, and a source file over PIPELINE_MAX_FILE_BYTES is skipped with a warning
 * (`PIPELINE_SCENARIOS`).
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { type TestTokens, testTokens } from "../testing/auth_tokens.ts";
import { startRedis } from "../testing/redis_server.ts";
import { type ServerProcess, startServer } from "../testing/server_process.ts";
import type { TaskScenario } from "./task_scenarios.ts";
import { until } from "../testing/until.ts";

const json = async (res: Response) => await res.json() as Record<string, unknown>;
const post = (url: string, body?: unknown) =>
  fetch(url, {
    method: "POST",
    ...(body !== undefined && { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });

async function waitDone(base: string, taskId: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const task = await json(await fetch(`${base}/tasks/${taskId}`));
    if (["done", "failed", "cancelled"].includes(String(task.status))) return task;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`task ${taskId} did not finish`);
}

/** Runs the scenario against servers started with `command`. */
export async function twoServersScenario(command: string[]): Promise<void> {
  await using redis = await startRedis();
  const dir = await Deno.makeTempDir({ prefix: "storectl-e2e-source-" });
  try {
    await Deno.writeTextFile(`${dir}/orbit.md`, "# Orbits\nSatellites orbit planets. Moons orbit too.");
    const env = { STORE_URL: redis.url, STORE_KEY_PREFIX: "e2e:", PIPELINE_SOURCE_DIR: dir };
    await using a = await startServer(command, env);
    await using b = await startServer(command, env);
    assertMatch(a.banner, /\(store: redis; search index: compact engine in a worker thread\)$/);
    const warm = await json(await fetch(`${b.url}/pipelines/search?q=orbit`)); // b's index exists before the ingest
    assertEquals(warm.hits, []);
    const documents = Array.from({ length: 30 }, (_, i) => ({
      title: `Planet ${i}`,
      source: `planet-${i}.md`,
      content: `Planet ${i} has ${"rings ".repeat(i % 7 + 1)}and an orbit of ${i * 10} days.`,
    }));
    const created = await post(`${a.url}/pipelines/run`, { documents, chunk_size: 200 });
    assertEquals(created.status, 201);
    const task = await waitDone(a.url, String((await json(created)).task_id));
    assertEquals(task.status, "done");
    const full = await post(`${b.url}/pipelines/full`, {});
    assertEquals(full.status, 201);
    assertEquals((await waitDone(b.url, String((await json(full)).task_id))).status, "done");
    for (const q of ["rings", "orbit", "planet 12", "satelites"]) {
      const [fromA, fromB] = await Promise.all(
        [a, b].map(async (s) => await json(await fetch(`${s.url}/pipelines/search?q=${encodeURIComponent(q)}&k=10`))),
      );
      assert((fromA.hits as unknown[]).length > 0, q);
      assertEquals(fromB, fromA, q);
    }
    const [statusA, statusB] = await Promise.all(
      [a, b].map(async (s) => await json(await fetch(`${s.url}/pipelines/status`))),
    );
    assertEquals([statusA.documents, statusB], [31, statusA]);
    const escaped = await post(`${a.url}/pipelines/prepare`, { path: "../" });
    assertEquals(escaped.status, 422);
    await escaped.body?.cancel();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Calls a server, with a bearer token when given one; a body is sent as JSON. */
const call = (server: ServerProcess, token: string | undefined, method: string, path: string, body?: unknown) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(token !== undefined && { authorization: `Bearer ${token}` }),
      ...(body !== undefined && { "content-type": "application/json" }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });

/** Submits a pipeline task through `server` and answers the task once it is done. */
async function completed(server: ServerProcess, token: string | undefined, path: string, body: unknown) {
  const created = await call(server, token, "POST", path, body);
  assertEquals(created.status, 201, await created.clone().text());
  const { task_id } = await created.json();
  let task: Record<string, unknown> = {};
  await until(() => `task ${task_id} is ${JSON.stringify(task)}, not done`, async () => {
    const res = await call(server, token, "GET", `/tasks/${task_id}`);
    task = res.ok ? await res.json() : { unreadable: res.status, body: await res.text() };
    return task.status === "done";
  });
  return task;
}

/** Ingests inline documents through `server` and waits for the task to be done. */
const ingest = (
  server: ServerProcess,
  token: string,
  documents: { title: string; content: string; source: string }[],
) => completed(server, token, "/pipelines/run", { documents });

/** The sources of the hits of a search through `server`. */
async function sources(server: ServerProcess, token: string | undefined, q: string): Promise<string[]> {
  const res = await call(server, token, "GET", `/pipelines/search?q=${encodeURIComponent(q)}&k=50`);
  assertEquals(res.status, 200, q);
  return ((await res.json()).hits as { source: string }[]).map((h) => h.source).sort();
}

/** Runs `work` with fresh tokens of two tenants (acme: `admin`, globex: `stranger`) and their SERVICE_TOKENS_FILE. */
async function withTokens(work: (tokens: TestTokens, file: string) => Promise<void>) {
  const tokens = testTokens();
  const file = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await Deno.writeTextFile(file, tokens.file);
    await work(tokens, file);
  } finally {
    await Deno.remove(file);
  }
}

/** Milliseconds `work` takes. */
async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** Words of random letters: a large vocabulary, which makes MiniSearch's fuzzy matching slow. */
function randomWords(seed: number, count: number, letters = "abcdefghijklmnopqrstuvwxyz", length = [5, 10]) {
  const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  return Array.from({ length: count }, () =>
    Array.from(
      { length: length[0] + Math.floor(rand() * (length[1] - length[0] + 1)) },
      () => letters[Math.floor(rand() * letters.length)],
    ).join(""));
}

const docs = (prefix: string, word: string, n: number) =>
  Array.from(
    { length: n },
    (_, i) => ({ title: `${prefix} ${i}`, source: `${prefix}-${i}.md`, content: `${word} ${i}.` }),
  );

export const PIPELINE_SCENARIOS: readonly TaskScenario[] = [
  {
    name: "Redis restarted empty: both processes' search finds every document a tenant wrote after it",
    tools: ["redis-server"],
    run: (command) =>
      withTokens(async (tokens, file) => {
        await using redis = await startRedis();
        const env = {
          SERVICE_TOKENS_FILE: file,
          STORE_URL: redis.url,
          STORE_KEY_PREFIX: `search-restart-${crypto.randomUUID()}:`,
          STORE_TIMEOUT_MS: "500",
        };
        await using a = await startServer(command, env);
        await using b = await startServer(command, env);
        const tenantB = tokens.stranger;
        await ingest(a, tokens.admin, docs("acme", "maple", 3));
        await ingest(a, tenantB, docs("before", "walnut", 8));
        for (const server of [a, b]) assertEquals((await sources(server, tenantB, "walnut")).length, 8);

        await redis.stop();
        await redis.start(); // empty
        for (const server of [a, b]) {
          await until("the server answers after the restart", async () => {
            const res = await fetch(`${server.url}/health`);
            await res.body?.cancel();
            return res.ok;
          });
        }
        await ingest(b, tenantB, docs("after", "chestnut", 12));
        const expected = docs("after", "chestnut", 12).map((d) => d.source).sort();
        for (const server of [a, b]) {
          assertEquals(await sources(server, tenantB, "chestnut"), expected, server.url);
          assertEquals(await sources(server, tenantB, "walnut"), [], "the documents lost with Redis");
          assertEquals(await sources(server, tokens.admin, "chestnut"), [], "another tenant's documents");
        }
      }),
  },
  {
    name: "SEARCH_ENGINE=minisearch: one tenant's slow searches do not hold another tenant's one-word search",
    tools: [],
    run: (command) =>
      withTokens(async (tokens, file) => {
        await using server = await startServer(command, {
          SERVICE_TOKENS_FILE: file,
          SEARCH_ENGINE: "minisearch",
          BODY_LIMIT_BYTES: "20000000",
        });
        const [tenantA, tenantB] = [tokens.admin, tokens.stranger];
        const words = randomWords(1, 200_000);
        await ingest(
          server,
          tenantA,
          Array.from({ length: 100 }, (_, i) => ({
            title: `Noise ${i}`,
            source: `noise-${i}.md`,
            content: `${words.slice(i * 2_000, (i + 1) * 2_000).join(" ")}.`,
          })),
        );
        await ingest(server, tenantB, docs("b", "lighthouse", 3));
        // The most terms a query may have, each long and matching nothing: fuzzy matching walks A's whole vocabulary.
        const slow = `/pipelines/search?q=${randomWords(2, 32, "bcdfghjkmnpqrstvwxz", [12, 12]).join("+")}`;
        const oneWord = "/pipelines/search?q=lighthouse";
        const search = async (token: string, path: string) => {
          const res = await call(server, token, "GET", path);
          assertEquals(res.status, 200, await res.clone().text());
          await res.body?.cancel();
        };
        await search(tenantA, slow); // A's index has caught up
        await search(tenantB, oneWord);
        let bTook = 0;
        const aTook = await timed(async () => {
          const batch = Array.from({ length: 8 }, () => search(tenantA, slow));
          bTook = await timed(() => search(tenantB, oneWord));
          await Promise.all(batch);
        });
        assert(aTook >= 400, `A's 8 searches took ${aTook.toFixed(0)} ms: too quick to tell whether B waited for them`);
        assert(bTook < aTook / 4, `B's one-word search took ${bTook.toFixed(0)} ms beside A's ${aTook.toFixed(0)} ms`);
      }),
  },
  {
    name:
      "PIPELINE_MAX_FILE_BYTES: a source file over it is skipped with a warning naming its size, the limit and the fix",
    tools: [],
    async run(command) {
      const dir = await Deno.makeTempDir({ prefix: "storectl-e2e-source-" });
      try {
        await Deno.writeTextFile(`${dir}/small.md`, "# Small\nA lighthouse keeper.");
        await Deno.writeTextFile(`${dir}/big.md`, `# Big\n${"Many harbour words. ".repeat(300)}`);
        await using server = await startServer(command, { PIPELINE_SOURCE_DIR: dir, PIPELINE_MAX_FILE_BYTES: "2000" });
        const task = await completed(server, undefined, "/pipelines/full", {});
        assertEquals([
          (task.result as Record<string, unknown>).prepared,
          (task.result as Record<string, unknown>).skipped,
        ], [1, 1]);
        assertEquals(
          (task.updates as Record<string, unknown>[]).filter((u) => u.update_type === "warning").map((u) => u.message),
          [
            "skipped big.md: 6006 bytes, over PIPELINE_MAX_FILE_BYTES (2000); split it into smaller files or raise the limit",
          ],
        );
        assertEquals(await sources(server, undefined, "lighthouse"), ["small.md"]);
        assertEquals(await sources(server, undefined, "harbour"), []);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  },
];
