/**
 * An OTLP/HTTP trace receiver for tests: a real HTTP server on loopback that takes what an
 * OpenTelemetry exporter posts to `/v1/traces` (OTLP's JSON encoding, as
 * `@opentelemetry/exporter-trace-otlp-http` sends it) and keeps each span with its service.
 *
 * @module
 */

/** One received span, flattened from OTLP's resource → scope → span nesting. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly attributes: Record<string, unknown>;
  /** The resource's `service.name` and `service.instance.id`. */
  readonly service: string;
  readonly instance: string;
}

export interface OtlpReceiver extends AsyncDisposable {
  /** Its base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly url: string;
  /** The spans received (none kept with `keep: false`). */
  readonly spans: ReceivedSpan[];
  /** How many spans it received. */
  count(): number;
  /** Batches it could not read. */
  dropped(): number;
}

interface KeyValue {
  key: string;
  value: Record<string, unknown>;
}

const valueOf = (value: Record<string, unknown>) => Object.values(value)[0];
const attributesOf = (list: KeyValue[] = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/**
 * Starts a receiver that keeps every span it is sent; with `keep: false` it only counts them (by
 * their `"spanId":` keys, without parsing: a benchmark's sink must cost little).
 */
export function startOtlpReceiver(options: { keep?: boolean } = {}): OtlpReceiver {
  const spans: ReceivedSpan[] = [];
  let count = 0;
  let dropped = 0;
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (request) => {
    if (new URL(request.url).pathname !== "/v1/traces" || request.method !== "POST") {
      return new Response("POST /v1/traces\n", { status: 404 });
    }
    if (!request.headers.get("content-type")?.startsWith("application/json")) {
      return new Response("this receiver takes OTLP's JSON encoding\n", { status: 415 });
    }
    if (options.keep === false) {
      const text = await request.text();
      for (let at = text.indexOf('"spanId":'); at !== -1; at = text.indexOf('"spanId":', at + 9)) count++;
      return Response.json({});
    }
    const body = await request.json().catch(() => undefined);
    if (body === undefined) {
      dropped++;
      return new Response("not JSON\n", { status: 400 });
    }
    for (const resourceSpans of body.resourceSpans ?? []) {
      const resource = attributesOf(resourceSpans.resource?.attributes);
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            ...(span.parentSpanId && { parentSpanId: span.parentSpanId }),
            name: span.name,
            kind: span.kind,
            attributes: attributesOf(span.attributes),
            service: String(resource["service.name"]),
            instance: String(resource["service.instance.id"]),
          });
          count++;
        }
      }
    }
    return Response.json({});
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    spans,
    count: () => count,
    dropped: () => dropped,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}
