/**
 * The service's metrics in the Prometheus text format (`prom-client`), served on a listener of
 * their own (`METRICS_PORT`): HTTP requests by method, route template and status with their
 * durations, rate-limit decisions, tasks submitted and ended by kind. Labels are bounded: a route
 * is its template (`/tasks/:task_id`), never a raw path; a path no route has is `unmatched`.
 * docs/operations.md, "Metrics", lists them.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { TaskObserver } from "../lib/tasks/mod.ts";
import type { StoreCallObserver } from "../lib/store/mod.ts";
import { routeTemplate } from "./route_template.ts";
import type { StreamObserver } from "./sse.ts";

/** A rate-limit decision: a 200, a 429, or a 503 because the store did not answer. */
export type RateLimitOutcome = "allowed" | "refused" | "store_error";

/** What the service counts, and the exposition of it. */
export interface Metrics {
  /** Measures every request (outermost, so that refusals by the guards count too). */
  readonly middleware: MiddlewareHandler;
  readonly tasks: TaskObserver;
  readonly streams: StreamObserver;
  rateLimit(outcome: RateLimitOutcome): void;
  /** Times store calls by family, and counts the failed. */
  readonly storeCalls: StoreCallObserver;
  /** The exposition: `text` in `contentType`. */
  render(): Promise<{ readonly text: string; readonly contentType: string }>;
}

/** Seconds: from a cached answer to a long stream's first byte. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * A fresh registry with the service's metrics. `ownRoutes`: paths answered by middleware rather
 * than a route (the rate-limited ones), labelled as themselves.
 */
export function createMetrics(ownRoutes: readonly string[] = []): Metrics {
  const own = new Map(ownRoutes.map((route) => [route.toLowerCase(), route]));
  const registry = new Registry();
  const requests = new Histogram({
    name: "storectl_http_request_duration_seconds",
    help: "HTTP requests by method, route template and status: time to the response's headers",
    labelNames: ["method", "route", "status"],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const rateLimit = new Counter({
    name: "storectl_rate_limit_decisions_total",
    help: "Decisions of the rate-limited route: allowed (200), refused (429), store_error (503)",
    labelNames: ["decision"],
    registers: [registry],
  });
  const submitted = new Counter({
    name: "storectl_tasks_submitted_total",
    help: "Tasks submitted to this process, by kind",
    labelNames: ["kind"],
    registers: [registry],
  });
  const finished = new Counter({
    name: "storectl_tasks_finished_total",
    help: "Tasks that ended in this process, by kind and outcome (done, failed)",
    labelNames: ["kind", "outcome"],
    registers: [registry],
  });
  const running = new Gauge({
    name: "storectl_tasks_running",
    help: "Tasks running in this process now, by kind",
    labelNames: ["kind"],
    registers: [registry],
  });
  const streamsOpen = new Gauge({
    name: "storectl_streams_open",
    help: "Event streams open now, by channel (task, session, global, a2a)",
    labelNames: ["channel"],
    registers: [registry],
  });
  const frames = new Counter({
    name: "storectl_stream_frames_total",
    help: "Frames taken for sending on event streams, by channel",
    labelNames: ["channel"],
    registers: [registry],
  });
  const cutOffs = new Counter({
    name: "storectl_stream_cutoffs_total",
    help: "Streams cut off because their client fell behind (it resumes with Last-Event-ID), by channel",
    labelNames: ["channel"],
    registers: [registry],
  });
  const storeCalls = new Histogram({
    name: "storectl_store_call_duration_seconds",
    help: "Store calls by family (the port and operation: tasks.get, events.append, hitSlidingWindow…)",
    labelNames: ["family"],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: "storectl_store_call_errors_total",
    help: "Store calls that failed (timeouts, lost connections, refusals), by family",
    labelNames: ["family"],
    registers: [registry],
  });
  return {
    storeCalls(family, startedAt, answer) {
      const took = () => storeCalls.observe({ family }, (performance.now() - startedAt) / 1000);
      answer.then(took, () => {
        took();
        storeErrors.inc({ family });
      });
    },
    async middleware(c, next) {
      const started = performance.now();
      try {
        await next();
      } finally {
        const route = routeTemplate(c, own);
        const status = String(c.res?.status ?? 500);
        requests.observe({ method: c.req.method, route, status }, (performance.now() - started) / 1000);
      }
    },
    tasks: {
      submitted: (kind) => submitted.inc({ kind }),
      finished: (kind, outcome) => finished.inc({ kind, outcome }),
      running: (kind, change) => running.inc({ kind }, change),
    },
    streams: {
      opened: (channel) => streamsOpen.inc({ channel }),
      closed: (channel) => streamsOpen.dec({ channel }),
      frames: (channel, count) => frames.inc({ channel }, count),
      cutOff: (channel) => cutOffs.inc({ channel }),
    },
    rateLimit: (decision) => rateLimit.inc({ decision }),
    async render() {
      return { text: await registry.metrics(), contentType: registry.contentType };
    },
  };
}

/** The metrics listener's fetch handler: `GET /metrics`, nothing else. */
export function metricsFetch(metrics: Metrics): (request: Request) => Promise<Response> {
  return async (request) => {
    const { pathname } = new URL(request.url);
    if (pathname !== "/metrics") return new Response("Only /metrics here\n", { status: 404 });
    if (request.method !== "GET") return new Response("GET /metrics\n", { status: 405, headers: { allow: "GET" } });
    const { text, contentType } = await metrics.render();
    return new Response(text, { headers: { "content-type": contentType } });
  };
}
