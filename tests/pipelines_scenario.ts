/**
 * Two server processes (`command`) on one redis-server: an ingest through one, then the same
 * search results from both; a path escaping PIPELINE_SOURCE_DIR is a 422. Run on Deno by
 * `pipelines_e2e_test.ts` and on the Node bundle by `node_bundle_test.ts`.
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { startRedis } from "./redis_server.ts";
import { startServer } from "./server_process.ts";

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
