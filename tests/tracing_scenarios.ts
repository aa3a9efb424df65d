/**
 * Tracing against server processes exporting to a real OTLP/HTTP receiver: one trace from the
 * caller's `traceparent` through the request, the task another process runs, its child, their
 * store calls, the webhook and the stream.
 *
 * @module
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { startRedis } from "../testing/redis_server.ts";
import { startServer } from "../testing/server_process.ts";
import { startOtlpReceiver } from "../testing/otlp_receiver.ts";
import { startReceiver } from "../testing/webhook_receiver.ts";
import { sseEvents } from "../testing/sse.ts";
import { until } from "../testing/until.ts";
import type { TaskScenario } from "./task_scenarios.ts";
import { newTraceparent, parseTraceparent } from "../lib/trace_context/mod.ts";

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

export const TRACING_SCENARIOS: readonly TaskScenario[] = [
  {
    name: "tracing on Redis, two processes: the caller's trace covers the request, the task the other process runs, " +
      "its child, their store calls, the webhook and the stream",
    tools: ["redis-server"],
    async run(command) {
      await using redis = await startRedis();
      await using otlp = startOtlpReceiver();
      await using hooks = startReceiver();
      const env = {
        STORE_URL: redis.url,
        STORE_KEY_PREFIX: `trace-${crypto.randomUUID()}:`,
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_BSP_SCHEDULE_DELAY: "50",
        TASK_CONCURRENCY: "1",
        WEBHOOK_ALLOW_HTTP: "true",
        WEBHOOK_ALLOW_HOSTS: "127.0.0.1",
      };
      await using a = await startServer(command, { ...env, OTEL_SERVICE_NAME: "storectl-a" });
      assert(a.banner.includes("traces: OTLP/HTTP"), a.banner);
      // A's one slot is held by a task waiting for an answer: the traced task is for B to run.
      const holder = await post(`${a.url}/tasks`, { kind: "demo", input: { steps: 0, ask: "hold on" } });
      await until("A runs the holder", async () => {
        const task = await (await fetch(`${a.url}/tasks/${holder.body.task_id}`)).json();
        return task.status === "input_required";
      });
      await using _b = await startServer(command, { ...env, OTEL_SERVICE_NAME: "storectl-b" }); // runs the traced task

      const traceparent = newTraceparent();
      const { traceId, spanId: callerSpan } = parseTraceparent(traceparent)!;
      const made = await post(`${a.url}/tasks`, {
        kind: "demo",
        input: { steps: 2, delay_ms: 50, children: 1 },
        webhook: { url: `${hooks.url}/hook` },
      }, { traceparent, tracestate: "vendor=abc" });
      assertEquals(made.status, 201);
      const taskId = made.body.task_id;
      const stream = await fetch(`${a.url}/tasks/${taskId}/stream`);
      const frames = await sseEvents(stream.body!);
      assertEquals(frames.at(-1)?.event, "done");
      await until("the webhook arrives", () => hooks.received.length === 1);

      const named = (name: string) => otlp.spans.filter((s) => s.traceId === traceId && s.name === name);
      await until(
        () => `the spans arrive (so far: ${otlp.spans.filter((s) => s.traceId === traceId).map((s) => s.name)})`,
        () =>
          named("POST /tasks").length === 1 && named("task demo").length === 2 && named("webhook POST").length === 1 &&
          named(`stream task:${taskId}`).length === 1,
      );
      const [request] = named("POST /tasks");
      assertEquals([request.parentSpanId, request.service, request.kind], [callerSpan, "storectl-a", 2]);
      assertEquals(request.attributes["http.response.status_code"], 201);
      const root = named("task demo").find((s) => s.attributes["storectl.task.id"] === taskId)!;
      const child = named("task demo").find((s) => s.attributes["storectl.task.id"] !== taskId)!;
      assertEquals([root.parentSpanId, root.service, root.kind], [request.spanId, "storectl-b", 5]);
      assertEquals([child.parentSpanId, child.service], [root.spanId, "storectl-b"], "the child is under its parent");
      assertEquals(root.attributes["storectl.task.outcome"], "done");
      const storeCalls = otlp.spans.filter((s) => s.parentSpanId === root.spanId && s.name.startsWith("store "));
      assert(
        storeCalls.some((s) => s.name === "store tasks.step"),
        `the run's steps: ${storeCalls.map((s) => s.name)}`,
      );
      assert(storeCalls.every((s) => s.attributes["db.system.name"] === "redis" && s.kind === 3));
      const [webhook] = named("webhook POST");
      assertEquals([webhook.attributes["http.response.status_code"], webhook.parentSpanId], [204, request.spanId]);
      assert(hooks.received[0].headers.traceparent?.includes(traceId), "the receiver is sent the trace");
      const [delivery] = named(`stream task:${taskId}`);
      assertEquals([delivery.service, delivery.parentSpanId], ["storectl-a", request.spanId]);
      assertEquals(delivery.attributes["storectl.stream.frames"], frames.length);
    },
  },
];
