/**
 * Tracing: the OpenTelemetry SDK, installed when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `…_TRACES_ENDPOINT`) is set, exporting over OTLP/HTTP; and the middleware that makes each
 * request a span, child of the caller's `traceparent`. The SDK is loaded only then: a service
 * that does not trace pays nothing for it. docs/operations.md, "Tracing", says what is traced.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import type { SpanExporter } from "@opentelemetry/sdk-trace";
import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { VERSION } from "../lib/version/mod.ts";
import type { StoreCallObserver } from "../lib/store/mod.ts";
import { failed, inRecordingSpan, isTracing, parseTraceparent, setTracing, startSpan } from "../lib/tracing/mod.ts";
import { routeTemplate } from "./route_template.ts";

/** The `OTEL_TRACES_SAMPLER` values the service takes (the specification's, less the Jaeger ones). */
export const SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;

/** What the service reads of the standard `OTEL_*` variables; the exporter reads the rest (headers, timeouts). */
export interface TracingConfig {
  /** `OTEL_SERVICE_NAME`, default `storectl`. */
  readonly serviceName: string;
  /** `OTEL_BSP_SCHEDULE_DELAY`: how long finished spans wait to be sent together, in milliseconds. */
  readonly scheduleDelayMs: number;
  /** `OTEL_TRACES_SAMPLER` (default `parentbased_always_on`), and `OTEL_TRACES_SAMPLER_ARG` for the ratio ones. */
  readonly sampler?: typeof SAMPLERS[number];
  readonly ratio?: number;
}

/** The installed SDK: `flush()` sends the finished spans now; `shutdown()` sends what is left and takes it down. */
export interface Tracing {
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Installs the SDK globally: a tracer provider exporting in batches over OTLP/HTTP (the
 * exporter reads `OTEL_EXPORTER_OTLP_*`), the async-context manager, and the W3C propagator.
 * `exporter` replaces the OTLP one (tests).
 */
export async function startTracing(config: TracingConfig, exporter?: SpanExporter): Promise<Tracing> {
  const [
    sdk,
    { OTLPTraceExporter },
    { AsyncLocalStorageContextManager },
    core,
    res,
  ] = await Promise.all([
    import("@opentelemetry/sdk-trace"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/context-async-hooks"),
    import("@opentelemetry/core"),
    import("@opentelemetry/resources"),
  ]);
  const resource = res.defaultResource().merge(res.resourceFromAttributes({
    "service.name": config.serviceName,
    "service.version": VERSION,
    "service.instance.id": crypto.randomUUID(),
  }));
  const processor = new sdk.BatchSpanProcessor({
    exporter: exporter ?? new OTLPTraceExporter(),
    scheduledDelayMillis: config.scheduleDelayMs,
  });
  const provider = new sdk.TracerProvider({ resource, spanProcessors: [processor], sampler: samplerOf(sdk, config) });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  setTracing(true);
  return {
    flush: () => provider.forceFlush(),
    async shutdown() {
      setTracing(false);
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** The sampler `config` names: a ratio or all or none, on its own or following the parent's decision. */
function samplerOf(sdk: typeof import("@opentelemetry/sdk-trace"), config: TracingConfig) {
  const name = config.sampler ?? "parentbased_always_on";
  const root = name.endsWith("traceidratio")
    ? new sdk.TraceIdRatioBasedSampler(config.ratio ?? 1)
    : name.endsWith("always_off")
    ? new sdk.AlwaysOffSampler()
    : new sdk.AlwaysOnSampler();
  return name.startsWith("parentbased_") ? new sdk.ParentBasedSampler({ root }) : root;
}

/**
 * Makes each request a server span, child of its `traceparent` (named by its route template once
 * routed), and the request's trace id that of the trace (`c.get("traceId")`, which errors and the
 * access log show). With tracing off, a valid `traceparent`'s trace id is the request's all the same.
 */
export function traceRequests(): MiddlewareHandler {
  return async (c, next) => {
    const traceparent = c.req.header("traceparent");
    if (!isTracing()) {
      const parent = parseTraceparent(traceparent);
      if (parent) c.set("traceId", parent.traceId);
      return await next();
    }
    const span = startSpan(c.req.method, {
      kind: SpanKind.SERVER,
      attributes: { "http.request.method": c.req.method, "url.path": c.req.path },
      ...(traceparent && { parent: { traceparent, tracestate: c.req.header("tracestate") } }),
    });
    const { traceId, spanId } = span.spanContext();
    c.set("traceId", traceId);
    c.set("spanId", spanId);
    try {
      await context.with(trace.setSpan(context.active(), span), next);
    } finally {
      const route = routeTemplate(c);
      const status = c.res?.status ?? 500;
      span.updateName(`${c.req.method} ${route}`);
      span.setAttributes({ "http.route": route, "http.response.status_code": status });
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}

/** Each store call made while a span records is a client span under it (not the runners' idle polls). */
export function storeSpans(system: string): StoreCallObserver {
  return (family, startTime, answer) => {
    if (!inRecordingSpan()) return;
    const span = startSpan(`store ${family}`, {
      kind: SpanKind.CLIENT,
      startTime,
      attributes: { "db.system.name": system, "db.operation.name": family },
    });
    answer.then(() => span.end(), (error) => {
      failed(span, error);
      span.end();
    });
  };
}
