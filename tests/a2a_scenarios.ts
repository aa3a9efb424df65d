/**
 * The service as an A2A agent, driven by the official client (`@a2a-js/sdk`) against server
 * processes: on Deno (`task_e2e_test.ts`) and on the Node bundle (`task_node_test.ts`) alike.
 *
 * @module
 */
import { assert, assertEquals, assertRejects } from "../testing/assert.ts";
import {
  a2aClient,
  BINDINGS,
  collect,
  message,
  outputOf,
  returnImmediately,
  TaskState,
  textOf,
} from "../testing/a2a_client.ts";
import { testTokens } from "../testing/auth_tokens.ts";
import { startRedis } from "../testing/redis_server.ts";
import { startServer } from "../testing/server_process.ts";
import { sseFrames } from "../testing/sse.ts";
import type { TaskScenario } from "./task_scenarios.ts";

/** Two server processes on one redis-server (and one key prefix); all stopped on dispose. */
async function twoOnRedis(command: string[]) {
  const redis = await startRedis();
  const env = { STORE_URL: redis.url, STORE_KEY_PREFIX: `a2a-${crypto.randomUUID()}:` };
  const [a, b] = await Promise.all([startServer(command, env), startServer(command, env)]);
  return {
    a,
    b,
    async [Symbol.asyncDispose]() {
      await Promise.all([a.stop(), b.stop()]);
      await redis[Symbol.asyncDispose]();
    },
  };
}

export const A2A_SCENARIOS: readonly TaskScenario[] = [
  {
    name: "A2A with tokens: the official client on both bindings, each tenant seeing its own tasks",
    tools: [],
    async run(command) {
      const tokens = testTokens();
      const file = await Deno.makeTempFile({ suffix: ".json" });
      await Deno.writeTextFile(file, tokens.file);
      try {
        await using server = await startServer(command, { STORE_URL: "memory:", SERVICE_TOKENS_FILE: file });
        for (const binding of BINDINGS) {
          const client = await a2aClient(server.url, binding, tokens.admin);
          const responses = await collect(client.sendMessageStream({
            message: message({ text: "tokens over the wire" }, { skill: "demo" }),
          } as never));
          assertEquals(outputOf(responses), "tokens over the wire", binding);
          const last = responses.at(-1)!.payload!;
          assert(last.$case === "statusUpdate" && last.value.status?.state === TaskState.TASK_STATE_COMPLETED);
          const stranger = await a2aClient(server.url, binding, tokens.stranger);
          const listed = await stranger.listTasks({ tenant: "", status: 0, pageToken: "" } as never);
          assertEquals(listed.tasks.length, 0, binding);
          const own = await client.listTasks({ tenant: "", status: 0, pageToken: "" } as never);
          assert(own.tasks.length >= 1, binding);
          const anonymous = await a2aClient(server.url, binding);
          await assertRejects(() => anonymous.listTasks({ tenant: "", status: 0, pageToken: "" } as never), /401/);
        }
      } finally {
        await Deno.remove(file);
      }
    },
  },
  {
    name: "A2A on Redis, two processes: sent on one, followed on the other, a dropped stream resumed on the first",
    tools: ["redis-server"],
    async run(command) {
      await using processes = await twoOnRedis(command);
      const { a, b } = processes;
      const words = Array.from({ length: 30 }, (_, i) => `w${i} `);
      const sender = await a2aClient(a.url, "JSONRPC");
      const started = await sender.sendMessage({
        message: message({ data: { steps: 3, delay_ms: 150, tokens: words } }, { skill: "demo" }),
        configuration: returnImmediately,
      } as never);
      assert("status" in started);

      // On B: a raw subscription cut after a few frames, as a load balancer would…
      const cut = new AbortController();
      const first = await fetch(`${b.url}/a2a/rest/tasks/${started.id}:subscribe`, {
        method: "POST",
        signal: cut.signal,
      });
      let lastId = "";
      for await (const frame of sseFrames(first.body!)) {
        if (frame.id) lastId = frame.id;
        if (Number(lastId) >= 2) break; // leaving the loop cancels the body: the connection drops
      }
      cut.abort();
      // …resumed on A with Last-Event-ID: every event after it, once.
      const resumed = await fetch(`${a.url}/a2a/rest/tasks/${started.id}:subscribe`, {
        method: "POST",
        headers: { "last-event-id": lastId },
      });
      const ids: number[] = [];
      for await (const frame of sseFrames(resumed.body!)) if (frame.id) ids.push(Number(frame.id));
      assertEquals(ids[0], Number(lastId) + 1);
      assertEquals(ids, [...new Set(ids)]);

      // The official client on B follows the task to its end and sees all of its output.
      const follower = await a2aClient(b.url, "HTTP+JSON");
      const task = await follower.getTask({ id: started.id, tenant: "" });
      assertEquals(task.status?.state, TaskState.TASK_STATE_COMPLETED);
      assertEquals(textOf(task.artifacts.find((x) => x.artifactId === "result")!.parts), words.join(""));
    },
  },
  {
    name: "A2A on Redis: SubscribeToTask on another process sees the tokens so far, then the rest",
    tools: ["redis-server"],
    async run(command) {
      await using processes = await twoOnRedis(command);
      const { a, b } = processes;
      const words = Array.from({ length: 20 }, (_, i) => `t${i} `);
      const started = await (await a2aClient(a.url, "HTTP+JSON")).sendMessage({
        message: message({ data: { steps: 4, delay_ms: 200, tokens: words } }, { skill: "demo" }),
        configuration: returnImmediately,
      } as never);
      assert("status" in started);
      const responses = await collect(
        (await a2aClient(b.url, "JSONRPC")).resubscribeTask({ id: started.id, tenant: "" }),
      );
      assertEquals(responses[0].payload?.$case, "task");
      assertEquals(outputOf(responses), words.join(""));
      const last = responses.at(-1)!.payload!;
      assert(last.$case === "statusUpdate" && last.value.status?.state === TaskState.TASK_STATE_COMPLETED);
    },
  },
];
