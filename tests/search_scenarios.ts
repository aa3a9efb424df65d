/**
 * Search in server processes with tokens and two tenants, for the Deno server
 * (`pipelines_e2e_test.ts`) and the Node bundle (`node_bundle_test.ts`): after a redis-server
 * restarted empty, every process's index finds every document written since.
 *
 * @module
 */
import { assertEquals } from "./assert.ts";
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
];
