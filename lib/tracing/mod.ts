/**
 * Spans through the OpenTelemetry API, and the W3C trace context kept with tasks. Nothing is
 * recorded until an entry installs an SDK and calls {@link setTracing} (the service does when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set, see `server/tracing.ts`): until then {@link inSpan} only
 * runs its function.
 *
 * @example
 * ```ts
 * import { activeTrace, inSpan } from "./mod.ts";
 * const answer = await inSpan("search", { attributes: { "storectl.terms": 2 } }, async () => 42);
 * activeTrace(); // undefined: tracing is off
 * ```
 *
 * @module
 */
import {
  type Attributes,
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import type { TaskTrace } from "../task_model/mod.ts";
import { VERSION } from "../version/mod.ts";

export { parseTraceparent } from "../trace_context/mod.ts";

export { SpanKind, SpanStatusCode };
export type { Span, TaskTrace };

let tracing = false;

/** Turns span recording on once an SDK is installed (and off when it is taken down). */
export function setTracing(on: boolean): void {
  tracing = on;
}

/** Whether spans are recorded in this process. */
export function isTracing(): boolean {
  return tracing;
}

/** How a span starts: its kind, its attributes, and its parent when that is not the active span. */
export interface SpanOptions {
  readonly kind?: SpanKind;
  readonly attributes?: Attributes;
  /** When it began, from `performance.now()`, when that was before the span is made. */
  readonly startTime?: number;
  /** A stored trace context (a task's) to continue instead of the active span. */
  readonly parent?: TaskTrace;
}

/**
 * Runs `fn` in a new active span, ended when `fn` settles; a failure is recorded on it and
 * thrown on. With tracing off, runs `fn` with no span.
 */
export async function inSpan<T>(name: string, options: SpanOptions, fn: (span?: Span) => Promise<T>): Promise<T> {
  if (!tracing) return await fn();
  const parent = parentOf(options);
  const span = begin(name, options, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (error) {
    failed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Starts a span that the caller ends (and need not make active). */
export function startSpan(name: string, options: SpanOptions): Span {
  return begin(name, options, parentOf(options));
}

function parentOf(options: SpanOptions): Context {
  return options.parent ? propagation.extract(ROOT_CONTEXT, options.parent) : context.active();
}

function begin(name: string, options: SpanOptions, parent: Context): Span {
  const tracer = trace.getTracer("storectl", VERSION);
  const { kind = SpanKind.INTERNAL, attributes, startTime } = options;
  return tracer.startSpan(name, { kind, attributes, startTime }, parent);
}

/** Marks `span` failed with `error`. */
export function failed(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** The active span's trace context, to keep with a task or send on; undefined with tracing off. */
export function activeTrace(): TaskTrace | undefined {
  if (!tracing) return undefined;
  const carrier: { traceparent?: string; tracestate?: string } = {};
  propagation.inject(context.active(), carrier);
  if (!carrier.traceparent) return undefined;
  return { traceparent: carrier.traceparent, ...(carrier.tracestate && { tracestate: carrier.tracestate }) };
}

/** The active span's ids, as log lines name them; undefined with tracing off or no span. */
export function activeSpanIds(): { trace_id: string; span_id: string } | undefined {
  const span = tracing ? trace.getActiveSpan() : undefined;
  if (!span) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** Whether a recording span is active: only then are the small steps under it (store calls) spans too. */
export function inRecordingSpan(): boolean {
  return tracing && trace.getActiveSpan()?.isRecording() === true;
}
