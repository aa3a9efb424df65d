/**
 * Search in server processes with tokens and two tenants, for the Deno server
 * (`pipelines_e2e_test.ts`) and the Node bundle (`node_bundle_test.ts`): after a redis-server
 * restarted empty, every process's index finds every document written since; and one tenant's
 * slow searches do not hold another tenant's.
 *
 * @module
 */
import { assert, assertEquals } from "./assert.ts";
import { testTokens } from "./auth_tokens.ts";
import { startRedis } from "./redis_server.ts";
import { type ServerProcess, startServer } from "./server_process.ts";
import type { TaskScenario } from "./task_scenarios.ts";
import { until } from "./until.ts";

/** Calls a server with a bearer token; a body is sent as JSON. */
const call = (server: ServerProcess, token: string, method: string, path: string, body?: unknown) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });

/** Ingests inline documents through `server` and waits for the task to be done. */
async function ingest(
  server: ServerProcess,
  token: string,
  documents: { title: string; content: string; source: string }[],
) {
  const created = await call(server, token, "POST", "/pipelines/run", { documents });
  assertEquals(created.status, 201, await created.clone().text());
  const { task_id } = await created.json();
  let status = "";
  await until(() => `task ${task_id} is ${status}, not done`, async () => {
    const res = await call(server, token, "GET", `/tasks/${task_id}`);
    status = res.ok ? (await res.json()).status : `unreadable (${res.status}: ${await res.text()})`;
    return status === "done";
  });
}

/** The sources of the hits of a search through `server`. */
async function sources(server: ServerProcess, token: string, q: string): Promise<string[]> {
  const res = await call(server, token, "GET", `/pipelines/search?q=${encodeURIComponent(q)}&k=50`);
  assertEquals(res.status, 200, q);
  return ((await res.json()).hits as { source: string }[]).map((h) => h.source).sort();
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

export const SEARCH_SCENARIOS: readonly TaskScenario[] = [
  {
    name: "Redis restarted empty: both processes' search finds every document a tenant wrote after it",
    tools: ["redis-server"],
    async run(command) {
      const tokens = testTokens(); // tenants acme (admin) and globex (stranger)
      const file = await Deno.makeTempFile({ suffix: ".json" });
      try {
        await Deno.writeTextFile(file, tokens.file);
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
      } finally {
        await Deno.remove(file);
      }
    },
  },
  {
    name: "SEARCH_ENGINE=minisearch: one tenant's slow searches do not hold another tenant's one-word search",
    tools: [],
    async run(command) {
      const tokens = testTokens();
      const file = await Deno.makeTempFile({ suffix: ".json" });
      try {
        await Deno.writeTextFile(file, tokens.file);
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
      } finally {
        await Deno.remove(file);
      }
    },
  },
];
