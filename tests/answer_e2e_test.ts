/**
 * Documents in, answers out, through real server processes: ingest through `/pipelines/run`,
 * ask through `POST /tasks {kind: "answer"}`, read the tokens over SSE, get the result with its
 * sources. On the memory store in one process, and on one redis-server shared by two processes
 * (ingest through one, answer through the other), on Deno and on the Node bundle.
 */
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { startRedis } from "../testing/redis_server.ts";
import { DENO_SERVER, startServer } from "../testing/server_process.ts";
import { sseEvents } from "../testing/sse.ts";
import { missingTools, requireTool } from "../testing/tools.ts";
import { bundleAll } from "../tools/bundle.ts";

const DOCUMENTS = [
  {
    title: "Backups",
    source: "docs/backups.md",
    content: "Backups run every night at two. A backup keeps thirty days of snapshots. " +
      "Restoring a backup takes about ten minutes for a small database.",
  },
  {
    title: "Scaling",
    source: "docs/scaling.md",
    content: "A cluster scales by adding shards. Resharding moves keys between shards without downtime.",
  },
  {
    title: "Alerts",
    source: "docs/alerts.md",
    content: "Alerts fire when memory usage passes ninety percent. Each alert names the database and the node.",
  },
];

async function call(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** The events of a task's stream until it ends (done, failed or cancelled), or until `stopAt` is seen. */
async function streamOf(base: string, taskId: string, stopAt?: string) {
  const res = await fetch(`${base}/tasks/${taskId}/stream`, { signal: AbortSignal.timeout(20_000) });
  assertEquals(res.status, 200);
  return await sseEvents(res.body!, (frame) => frame.event === stopAt);
}

async function ingest(base: string) {
  const run = await call(base, "POST", "/pipelines/run", { documents: DOCUMENTS, chunk_size: 200 });
  assertEquals(run.status, 201, JSON.stringify(run.body));
  const events = await streamOf(base, run.body.task_id);
  assertEquals(events.at(-1)?.event, "done", JSON.stringify(events.at(-1)));
}

type Commands = { first: string[]; second: string[] };

async function answerFlow(base: { ingest: string; ask: string }) {
  await ingest(base.ingest);

  const asked = await call(base.ask, "POST", "/tasks", {
    kind: "answer",
    input: { question: "How long are backup snapshots kept?" },
  });
  assertEquals(asked.status, 201, JSON.stringify(asked.body));
  const id = asked.body.task_id;
  const events = await streamOf(base.ask, id);
  const done = events.at(-1)!;
  assertEquals(done.event, "done", JSON.stringify(done));
  const tokens = events.filter((e) => e.event === "token").map((e) => e.data!.message as string);
  assert(tokens.length > 1, `the answer comes as several tokens, got ${tokens.length}`);
  const result = done.data!.result as { answer: string; sources: { source: string; title: string }[] };
  assertEquals(tokens.join(""), result.answer);
  assertMatch(result.answer, /thirty days/);
  assertEquals(result.sources[0].source, "docs/backups.md");
  assertEquals(result.sources[0].title, "Backups");
  const children = await call(base.ask, "GET", `/tasks/${id}/children`);
  assertEquals(children.body.children.map((c: { spawn_key: string }) => c.spawn_key), ["retrieve"]);
  assertEquals(children.body.children[0].status, "done");

  // Nothing matches: the task asks for a rephrased question, and answers the new one.
  const vague = await call(base.ask, "POST", "/tasks", { kind: "answer", input: { question: "xylophone quartz" } });
  const asking = await streamOf(base.ask, vague.body.task_id, "input_required");
  assertEquals(asking.at(-1)?.event, "input_required");
  const given = await call(base.ask, "POST", `/tasks/${vague.body.task_id}/input`, { input: "When do alerts fire?" });
  assertEquals(given.status, 200, JSON.stringify(given.body));
  const resumed = await streamOf(base.ask, vague.body.task_id);
  assertEquals(resumed.at(-1)?.event, "done");
  assertMatch((resumed.at(-1)!.data!.result as { answer: string }).answer, /ninety percent/);
}

async function onMemory(command: string[]) {
  const server = await startServer(command, { STORE_URL: "memory:" });
  try {
    await answerFlow({ ingest: server.url, ask: server.url });
  } finally {
    assertEquals(await server.stop(), 0);
  }
}

async function onRedisTwoProcesses(commands: Commands) {
  await using redis = await startRedis();
  const first = await startServer(commands.first, { STORE_URL: redis.url });
  const second = await startServer(commands.second, { STORE_URL: redis.url });
  try {
    await answerFlow({ ingest: first.url, ask: second.url });
  } finally {
    assertEquals(await first.stop(), 0);
    assertEquals(await second.stop(), 0);
  }
}

Deno.test("ingest then answer, memory store (Deno)", () => onMemory(DENO_SERVER));

Deno.test(
  "ingest through one process, answer through another, one redis-server (Deno)",
  { ignore: missingTools("redis-server") },
  () => onRedisTwoProcesses({ first: DENO_SERVER, second: DENO_SERVER }),
);

Deno.test("the same on the Node bundle", { ignore: missingTools("node", "redis-server") }, async (t) => {
  const node = requireTool("node");
  const dir = await Deno.makeTempDir({ prefix: "answer-e2e-" });
  try {
    await bundleAll(dir);
    const server = [node, `${dir}/server.mjs`];
    await t.step("memory store", () => onMemory(server));
    await t.step(
      "one Deno and one Node process on one redis-server",
      () => onRedisTwoProcesses({ first: DENO_SERVER, second: server }),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
