/**
 * End-to-end task and stream scenarios against a server process, run on Deno
 * (`task_e2e_test.ts`) and on the Node bundle (`task_node_test.ts`) alike.
 *
 * @module
 */
import { EventSource } from "eventsource";
import { assert, assertEquals } from "../testing/assert.ts";
import { startRedis } from "../testing/redis_server.ts";
import { startRedisCluster } from "../testing/redis_cluster.ts";
import { type ServerProcess, startServer } from "../testing/server_process.ts";
import { sseEvents } from "../testing/sse.ts";
import { startTcpProxy } from "../testing/tcp_proxy.ts";
import { requireTool } from "../testing/tools.ts";
import { until } from "../testing/until.ts";

/** One scenario: the system tools it needs, and its body given the server's command line. */
export interface TaskScenario {
  readonly name: string;
  readonly tools: readonly string[];
  run(command: string[]): Promise<void>;
}

async function submit(server: ServerProcess, input: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${server.url}/tasks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ kind: "demo", input }),
  });
  assertEquals(res.status, 201);
  return (await res.json()).task_id;
}

/** `curl -N` on a stream until the server ends it: the frames it printed. */
async function curlStream(url: string, headers: string[] = []) {
  const { code, stdout } = await new Deno.Command(requireTool("curl"), {
    args: ["-sSN", "--max-time", "30", ...headers.flatMap((h) => ["-H", h]), url],
    stdout: "piped",
  }).output();
  assertEquals(code, 0, "curl exits 0 when the server ends the stream");
  return await sseEvents(new Response(stdout).body!);
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

/** Reads a task stream until `until` holds, then closes it. */
async function watch(
  server: ServerProcess,
  taskId: string,
  until: (event: string, data: Record<string, unknown>) => boolean,
) {
  const res = await fetch(`${server.url}/tasks/${taskId}/stream`);
  return await sseEvents(res.body!, (f) => until(f.event!, f.data!));
}

const env = (redisUrl: string, extra: Record<string, string> = {}) => ({
  STORE_URL: redisUrl,
  STORE_KEY_PREFIX: `runner-${crypto.randomUUID()}:`,
  ...extra,
});

export const TASK_SCENARIOS: readonly TaskScenario[] = [
  {
    name: "curl -N reads a task stream live until done; Last-Event-ID resumes it",
    tools: ["curl"],
    async run(command) {
      await using server = await startServer(command, { STORE_URL: "memory:" });
      const id = await submit(server, { steps: 3, delay_ms: 50, tokens: ["Hel", "lo"], children: 1 });
      const frames = await curlStream(`${server.url}/tasks/${id}/stream`);
      assertEquals(frames.map((f) => f.id), range(1, frames.length));
      assertEquals(frames.at(-1)?.event, "done");
      assertEquals(frames.at(-1)?.data, { task_id: id, result: { answer: "Hello" } });
      assert(frames.some((f) => f.event === "subtask_done"));
      const resumed = await curlStream(`${server.url}/tasks/${id}/stream`, ["Last-Event-ID: 4"]);
      assertEquals(resumed.map((f) => f.id), range(5, frames.length));
    },
  },
  {
    name: "the eventsource package reconnects with Last-Event-ID after the connection drops, missing nothing",
    tools: [],
    async run(command) {
      await using server = await startServer(command, { STORE_URL: "memory:" });
      await using proxy = startTcpProxy(Number(new URL(server.url).port));
      const id = await submit(server, { steps: 30, delay_ms: 40, tokens: ["a", "b"] });
      const source = new EventSource(`http://127.0.0.1:${proxy.port}/tasks/${id}/stream`);
      const seen: string[] = [];
      let opened = 0;
      const finished = new Promise<void>((resolve, reject) => {
        source.onopen = () => opened++;
        const on = (event: MessageEvent) => {
          seen.push(event.lastEventId);
          if (seen.length === 5) proxy.dropAll(); // the "load balancer" cuts the stream
          if (event.type === "done") resolve();
        };
        for (const kind of ["update", "token", "done"]) source.addEventListener(kind, on);
        setTimeout(() => reject(new Error(`no done after 20 s; saw ${seen.join(",")}`)), 20_000);
      });
      try {
        await finished;
      } finally {
        source.close();
      }
      assert(opened >= 2, `reconnected (opened ${opened} times)`);
      assertEquals(seen, range(1, 33), "every event exactly once across the reconnect");
    },
  },
  {
    name: "two server processes on one Redis: created in one, streamed and cancelled through the other",
    tools: ["redis-server", "curl"],
    async run(command) {
      await using redis = await startRedis();
      const env = { STORE_URL: redis.url, STORE_KEY_PREFIX: `e2e-${crypto.randomUUID()}:` };
      await using a = await startServer(command, env);
      await using b = await startServer(command, env);
      const id = await submit(a, { steps: 500, delay_ms: 20, children: 2 });
      const stream = await fetch(`${b.url}/tasks/${id}/stream?events=update,cancelled`);
      const frames = sseEvents(stream.body!);
      await until(
        "the long task has made a few updates",
        async () => (await (await fetch(`${b.url}/tasks/${id}`)).json()).updates.length > 3,
      );
      const cancel = await fetch(`${b.url}/tasks/${id}/cancel`, { method: "POST" });
      assertEquals(await cancel.json(), { cancelled_count: 3 });
      const got = await frames;
      assertEquals(got.at(-1)?.event, "cancelled", "B's stream ends with the cancel");
      assert(got.filter((f) => f.event === "update").length > 3, "B streamed A's updates");
      const before = (await (await fetch(`${a.url}/tasks/${id}`)).json()).updates.length;
      await new Promise((r) => setTimeout(r, 200));
      const task = await (await fetch(`${a.url}/tasks/${id}`)).json();
      assertEquals([task.status, task.updates.length], ["cancelled", before], "A stopped running it");
      const children = await (await fetch(`${b.url}/tasks/${id}/children`)).json();
      assertEquals(children.children.map((c: { status: string }) => c.status), ["cancelled", "cancelled"]);
      const replayed = await curlStream(`${a.url}/tasks/${id}/stream?events=cancelled`);
      assertEquals(replayed.map((f) => f.event), ["cancelled"]);
    },
  },
  {
    name:
      "two server processes on a Redis Cluster: trees created in one, listed, streamed and cancelled through the other",
    tools: ["redis-server", "redis-cli"],
    async run(command) {
      await using cluster = await startRedisCluster();
      const env = { STORE_URL: cluster.url, STORE_KEY_PREFIX: `e2e-${crypto.randomUUID()}:` };
      await using a = await startServer(command, env);
      await using b = await startServer(command, env);
      assertEquals((await (await fetch(`${a.url}/health`)).json()).store, "redis-cluster");
      const quick = await Promise.all(Array.from({ length: 6 }, () => submit(a, { steps: 1, children: 1 })));
      const id = await submit(a, { steps: 500, delay_ms: 20, children: 2 });
      const stream = await fetch(`${b.url}/tasks/${id}/stream?events=update,cancelled`);
      const frames = sseEvents(stream.body!);
      frames.catch(() => {}); // awaited below; a failing check before that must not leave it unhandled
      // The quick trees finish (their children too), whichever process ran them.
      for (const task of quick) {
        for (let i = 0; i < 200; i++) {
          if ((await (await fetch(`${b.url}/tasks/${task}`)).json()).status === "done") break;
          await new Promise((r) => setTimeout(r, 50));
        }
        assertEquals((await (await fetch(`${b.url}/tasks/${task}`)).json()).status, "done");
        const children = await (await fetch(`${b.url}/tasks/${task}/children`)).json();
        assertEquals(children.children.map((c: { status: string }) => c.status), ["done"]);
      }
      // Every task of every partition, newest first: the long task before the quick roots it followed.
      const listed = (await (await fetch(`${b.url}/tasks?limit=100`)).json()).tasks.map((t: { task_id: string }) =>
        t.task_id
      );
      assertEquals(listed.length, 7 + 6 + 2);
      for (const task of quick) assert(listed.indexOf(task) > listed.indexOf(id), "listed newest first");
      await until(
        "the long task has made a few updates",
        async () => (await (await fetch(`${b.url}/tasks/${id}`)).json()).updates.length > 3,
      );
      const cancel = await fetch(`${b.url}/tasks/${id}/cancel`, { method: "POST" });
      assertEquals(await cancel.json(), { cancelled_count: 3 });
      const got = await frames;
      assertEquals(got.at(-1)?.event, "cancelled", "B's stream ends with the cancel");
      assert(got.filter((f) => f.event === "update").length > 3, "B streamed A's updates");
      const ids = got.map((f) => Number(f.id));
      assert(ids.every((n, i) => i === 0 || n > ids[i - 1]), `ids in order, none twice: ${ids}`);
    },
  },
  {
    name:
      "limits on Redis: a thousand-task request is a 422 before anything is stored; over TENANT_MAX_LIVE_TASKS a 429",
    tools: ["redis-server"],
    async run(command) {
      await using redis = await startRedis();
      await using server = await startServer(command, env(redis.url, { TENANT_MAX_LIVE_TASKS: "2" }));
      const post = (input: Record<string, unknown>) =>
        fetch(`${server.url}/tasks`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ kind: "demo", input }),
        });
      const probe = await post({ steps: 0, children: 10, depth: 3, tokens: Array(2_000).fill("token") });
      assertEquals(probe.status, 422);
      assert((await probe.json()).detail.includes("TASK_MAX_TREE_TASKS"));
      assertEquals((await (await fetch(`${server.url}/tasks`)).json()).total, 0, "nothing stored");
      await submit(server, { ask: "?" });
      await submit(server, { ask: "?" });
      const over = await post({ ask: "?" });
      assertEquals([over.status, over.headers.get("retry-after")], [429, "1"]);
      assert((await over.json()).detail.includes("TENANT_MAX_LIVE_TASKS"));
    },
  },
  {
    name: "runners on one Redis share queued work: a second task runs in the other process",
    tools: ["redis-server"],
    async run(command) {
      await using redis = await startRedis();
      const settings = env(redis.url, { TASK_CONCURRENCY: "1" });
      await using a = await startServer(command, settings);
      await using b = await startServer(command, settings);
      const first = await submit(a, { steps: 200, delay_ms: 20 });
      const second = await submit(a, { steps: 200, delay_ms: 20 });
      // Each process runs one root task at a time, so both progressing means each has one.
      await Promise.all([first, second].map((id) => watch(a, id, (e) => e === "update")));
      assertEquals(
        (await (await fetch(`${a.url}/tasks/${first}/cancel`, { method: "POST" })).json()).cancelled_count,
        1,
      );
      assertEquals(
        (await (await fetch(`${b.url}/tasks/${second}/cancel`, { method: "POST" })).json()).cancelled_count,
        1,
      );
    },
  },
  {
    name: "a runner process killed mid-task: another process reclaims the task after its lease and finishes it",
    tools: ["redis-server"],
    async run(command) {
      await using redis = await startRedis();
      const settings = env(redis.url, { TASK_LEASE_SECONDS: "1" });
      await using a = await startServer(command, settings);
      // Long enough (5 s) that the first runner cannot finish it while the second one starts on a busy machine.
      const id = await submit(a, { steps: 50, delay_ms: 100, tokens: ["o", "k"], children: 1 });
      await watch(a, id, (e, d) => e === "update" && d.message === "step 2 of 50");
      await using b = await startServer(command, settings); // it could not have taken the task before
      await a.kill();
      const killedAt = Date.now();
      const retry = await watch(b, id, (_e, d) => d.update_type === "retry");
      assertEquals(retry.at(-1)?.data?.message, "restarted (attempt 2): the runner that had it stopped");
      assert(Date.now() - killedAt < 10_000, "reclaimed within lease + poll, not forever");
      const events = await watch(b, id, (e) => e === "done" || e === "failed");
      assertEquals(events.at(-1)?.data, { task_id: id, result: { answer: "ok" } });
      const tree = await (await fetch(`${b.url}/tasks/${id}/tree`)).json();
      assertEquals(tree.children.map((c: { task: { status: string } }) => c.task.status), ["done"]);
    },
  },
  {
    name: "SIGTERM hands a running task back: another process restarts it at once, not after the lease",
    tools: ["redis-server"],
    async run(command) {
      await using redis = await startRedis();
      const settings = env(redis.url, { TASK_LEASE_SECONDS: "60" });
      await using a = await startServer(command, settings);
      // Long enough (5 s) that the first process cannot finish it while the second one starts on a busy machine.
      const id = await submit(a, { steps: 100, delay_ms: 50 });
      await watch(a, id, (e) => e === "update");
      await using b = await startServer(command, settings);
      const stoppedAt = Date.now();
      assertEquals(await a.stop(), 0);
      await watch(b, id, (_e, d) => d.update_type === "retry");
      const tookOver = Date.now() - stoppedAt;
      assert(tookOver < 15_000, `took over in ${tookOver} ms, well inside the 60 s lease`);
      const events = await watch(b, id, (e) => e === "done" || e === "failed");
      assertEquals(events.at(-1)?.event, "done");
    },
  },
];
