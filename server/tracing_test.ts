import { InMemorySpanExporter } from "@opentelemetry/sdk-trace";
import { assert, assertEquals } from "../testing/assert.ts";
import { testApp } from "../testing/service.ts";
import { until } from "../testing/until.ts";
import { startTracing } from "./tracing.ts";
import { formatLog } from "./log.ts";
import { newTraceparent, parseTraceparent } from "../lib/trace_context/mod.ts";

const CONFIG = { serviceName: "storectl-test", scheduleDelayMs: 10 };

Deno.test("tracing off: a request's traceparent gives the trace id its problem and access line show", async () => {
  const lines: string[] = [];
  await using served = testApp({ env: { LOG_FORMAT: "json" }, log: formatLog("json", (line) => lines.push(line)) });
  const traceparent = newTraceparent();
  const res = await served.app.request("/tasks/t-none", { headers: { traceparent } });
  assertEquals(res.status, 404);
  const { traceId } = parseTraceparent(traceparent)!;
  assertEquals((await res.json()).traceId, traceId);
  const access = lines.map((line) => JSON.parse(line)).find((e) => e.message === "request");
  assertEquals([access.trace_id, access.span_id], [traceId, undefined]);
  const bad = await served.app.request("/tasks/t-none", { headers: { traceparent: "00-zz-zz-01" } });
  assert((await bad.json()).traceId !== "zz", "a malformed traceparent is ignored");
});

Deno.test("tracing on: a request is a server span under its traceparent; the task, its store calls and log lines are under it", async () => {
  const exporter = new InMemorySpanExporter();
  const tracing = await startTracing(CONFIG, exporter);
  try {
    const lines: string[] = [];
    await using served = testApp({ env: { LOG_FORMAT: "json" }, log: formatLog("json", (line) => lines.push(line)) });
    const traceparent = newTraceparent();
    const { traceId, spanId: caller } = parseTraceparent(traceparent)!;
    const res = await served.app.request("/tasks", {
      method: "POST",
      headers: { traceparent, "content-type": "application/json" },
      body: JSON.stringify({ kind: "demo", input: { steps: 1, delay_ms: 0, children: 1, fail: "on purpose" } }),
    });
    assertEquals(res.status, 201);
    const made = await res.json();
    assert(!("trace" in made), "the trace context kept with the task is not part of the API's task");
    const read = await (await served.app.request(`/tasks/${made.task_id}`)).json();
    assert(!("trace" in read), "nor of GET /tasks/{id}");
    const spans = () => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    await until("the task's spans end", () => spans().filter((s) => s.name === "task demo").length === 2);
    const request = spans().find((s) => s.name === "POST /tasks")!;
    assertEquals(request.parentSpanContext?.spanId, caller);
    assertEquals(request.attributes["http.route"], "/tasks");
    const runs = spans().filter((s) => s.name === "task demo");
    const root = runs.find((s) => s.parentSpanContext?.spanId === request.spanContext().spanId)!;
    const child = runs.find((s) => s !== root)!;
    assertEquals(child.parentSpanContext?.spanId, root.spanContext().spanId);
    assertEquals(root.status.message, "on purpose", "a failed task's span says why");
    const underRoot = spans().filter((s) => s.parentSpanContext?.spanId === root.spanContext().spanId);
    assert(underRoot.some((s) => s.name === "store tasks.step"), underRoot.map((s) => s.name).join());
    const access = lines.map((line) => JSON.parse(line)).find((e) => e.message === "request");
    assertEquals([access.trace_id, access.span_id], [traceId, request.spanContext().spanId]);
    // The runners' idle polls, outside any span, are no spans of their own.
    assert(exporter.getFinishedSpans().every((s) => !s.name.startsWith("store ") || s.parentSpanContext));
  } finally {
    await tracing.shutdown();
  }
});

Deno.test("OTEL_TRACES_SAMPLER: always_off records no span; parentbased_traceidratio follows a sampled caller", async () => {
  for (const [sampler, ratio, expected] of [["always_off", 1, 0], ["parentbased_traceidratio", 0, 1]] as const) {
    const exporter = new InMemorySpanExporter();
    const tracing = await startTracing({ ...CONFIG, sampler, ratio }, exporter);
    try {
      await using served = testApp();
      const res = await served.app.request("/tasks/t-none", { headers: { traceparent: newTraceparent() } });
      await res.body?.cancel();
      await tracing.flush();
      assertEquals(
        exporter.getFinishedSpans().filter((s) => s.name === "GET /tasks/:task_id").length,
        expected,
        sampler,
      );
    } finally {
      await tracing.shutdown();
    }
  }
});
