/**
 * Webhook deliveries across processes, on Deno (`task_e2e_test.ts`) and on the Node bundle
 * (`task_node_test.ts`): every delivery verified with the official `standardwebhooks` library.
 *
 * @module
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { startRedis } from "../testing/redis_server.ts";
import { startServer } from "../testing/server_process.ts";
import { until } from "../testing/until.ts";
import { startReceiver } from "../testing/webhook_receiver.ts";
import type { TaskScenario } from "./task_scenarios.ts";

const post = async (url: string, body: unknown) => {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
};

export const WEBHOOK_SCENARIOS: readonly TaskScenario[] = [
  {
    name: "webhooks on Redis: a process killed mid-delivery; another delivers it after the lease, same webhook-id",
    tools: ["redis-server"],
    async run(command) {
      await using redis = await startRedis();
      await using receiver = startReceiver();
      const env = {
        STORE_URL: redis.url,
        STORE_KEY_PREFIX: `wh-${crypto.randomUUID()}:`,
        WEBHOOK_ALLOW_HTTP: "true",
        WEBHOOK_ALLOW_HOSTS: "127.0.0.1",
        WEBHOOK_TIMEOUT_MS: "2000", // a lease of 7 s
      };
      const a = await startServer(command, env);
      const made = await post(`${a.url}/webhooks`, { url: `${receiver.url}/hook` });
      assertEquals(made.status, 201);
      receiver.secret("/hook", made.body.secret);
      let release = () => {};
      const held = new Promise<number>((resolve) => release = () => resolve(204));
      receiver.answer = (_got, count) => count === 1 ? held : 204; // the first attempt gets no answer
      const task = await post(`${a.url}/tasks`, { kind: "demo", input: { steps: 0 } });
      await until("the first attempt arrives", () => receiver.received.length === 1);
      await a.kill(); // mid-delivery: its attempt is never recorded
      release();
      await using b = await startServer(command, env);
      await until("another process delivers it", () => receiver.received.length === 2, 20_000);
      const [first, second] = receiver.received;
      assertEquals(second.id, first.id);
      assert(first.verified && second.verified, "both verify with the official library");
      assertEquals(JSON.parse(second.body).data.task_id, task.body.task_id);
      await until("B records it delivered", async () => {
        const log = await (await fetch(`${b.url}/webhooks/${made.body.id}/deliveries`)).json();
        return log.deliveries[0]?.state === "delivered";
      });
    },
  },
];
