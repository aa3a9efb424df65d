/**
 * The service's metrics in the Prometheus text format (`prom-client`), served on a listener of
 * their own (`METRICS_PORT`): requests, rate-limit decisions, tasks, the work queue, streams,
 * store calls and webhook deliveries. Labels are bounded: a route is its template
 * (`/tasks/:task_id`), never a raw path (a path no route has is `unmatched`); the tenant is a
 * label only with `METRICS_TENANT_LABEL`, and past `METRICS_TENANT_CAP` tenants the rest are
 * `_other`. docs/operations.md, "Metrics", lists them.
 *
 * @module
 */
import type { Context } from "hono";
import { Counter, Gauge, Registry } from "prom-client";
import type { TaskObserver } from "../lib/tasks/mod.ts";
import type { LaneBacklog, StoreCallObserver } from "../lib/store/mod.ts";
import type { DeliveryOutcome } from "../lib/webhooks/mod.ts";
import { routeTemplate } from "./route_template.ts";
import type { StreamObserver } from "./sse.ts";
import type { AnswerObserver } from "./security_headers.ts";
import { callerOf } from "./auth/principal.ts";
import { FastHistogram } from "./fast_histogram.ts";

/** A rate-limit decision: a 200, a 429, or a 503 because the store did not answer. */
export type RateLimitOutcome = "allowed" | "refused" | "store_error";

/** What the service counts, and the exposition of it. */
export interface Metrics {
  /** Measures each request once answered (told by the outermost middleware: refusals by the guards count too). */
  readonly answered: AnswerObserver;
  /** What the runner of `tenant`'s scope tells (none: running open). */
  tasksOf(tenant?: string): TaskObserver;
  readonly streams: StreamObserver;
  rateLimit(outcome: RateLimitOutcome): void;
  /** Times store calls by family, and counts the failed. */
  readonly storeCalls: StoreCallObserver;
  /** Counts webhook deliveries' attempts by how they ended. */
  webhookAttempt(outcome: DeliveryOutcome): void;
  /** The exposition: `text` in `contentType`. */
  render(): Promise<{ readonly text: string; readonly contentType: string }>;
}

/** What the metrics read from the service when scraped, and how they label tenants. */
export interface MetricsOptions {
  /** Each scope's queue backlog, by tenant (none: running open), read at each scrape. */
  readonly backlog?: () => Promise<{ tenant?: string; lanes: LaneBacklog[] }[]>;
  /** `METRICS_TENANT_LABEL`: label requests, tasks and the queue by tenant, up to this many tenants. */
  readonly tenantCap?: number;
  readonly now?: () => number;
}

/** Seconds: from a cached answer to a long stream's first byte. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The tenant label of tenants past the cap. */
export const OTHER_TENANTS = "_other";

/** A fresh registry with the service's metrics. */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const now = options.now ?? Date.now;
  const registry = new Registry();
  const byTenant = options.tenantCap !== undefined;
  const tenantLabel = tenantLabels(options.tenantCap ?? 0);
  const withTenant = (names: string[]) => byTenant ? [...names, "tenant"] : names;
  const make = <T>(Kind: new (config: never) => T, name: string, help: string, labelNames: string[], extra = {}) =>
    new Kind({ name, help, labelNames, registers: [registry], ...extra } as never);

  // The two observed on every request are prom-client's in format only (fast_histogram.ts says why).
  const requests = new FastHistogram(
    "storectl_http_request_duration_seconds",
    "HTTP requests by method, route template and status: time to the response's headers",
    DURATION_BUCKETS,
    registry,
  );
  // By tenant a counter, not the histogram: its series are the tenants times two or three status classes.
  const tenantRequests = make(
    Counter,
    "storectl_tenant_requests_total",
    "HTTP requests by tenant and status class (2xx, 4xx, 5xx), with METRICS_TENANT_LABEL",
    ["tenant", "code"],
  );
  // Counted per request too: plain numbers, handed to the counter when scraped.
  const decisions: Record<RateLimitOutcome, number> = { allowed: 0, refused: 0, store_error: 0 };
  make(
    Counter,
    "storectl_rate_limit_decisions_total",
    "Decisions of the rate-limited route: allowed (200), refused (429), store_error (503)",
    ["decision"],
    {
      collect(this: Counter) {
        this.reset();
        for (const [decision, count] of Object.entries(decisions)) if (count > 0) this.inc({ decision }, count);
      },
    },
  );
  const submitted = make(
    Counter,
    "storectl_tasks_submitted_total",
    "Tasks submitted to this process, by kind",
    withTenant(["kind"]),
  );
  const finished = make(
    Counter,
    "storectl_tasks_finished_total",
    "Tasks that ended in this process, by kind and outcome (done, failed)",
    withTenant(["kind", "outcome"]),
  );
  const running = make(Gauge, "storectl_tasks_running", "Tasks running in this process now, by kind", ["kind"]);
  const takeovers = make(
    Counter,
    "storectl_task_lease_takeovers_total",
    "Queued tasks taken over from a runner whose lease ran out or that handed them back, by lane",
    ["lane"],
  );
  const retries = make(
    Counter,
    "storectl_store_retries_total",
    "Store calls of the task runners made again after failing for a reason that may pass",
    [],
  );
  const waiting = make(
    Gauge,
    "storectl_task_queue_waiting",
    "Root tasks queued that no runner has taken yet, by lane (read from the store at each scrape)",
    withTenant(["lane"]),
  );
  const oldest = make(
    Gauge,
    "storectl_task_queue_oldest_age_seconds",
    "How long the oldest task no runner has taken has waited, by lane (0: none waits)",
    withTenant(["lane"]),
  );
  const streamsOpen = make(
    Gauge,
    "storectl_streams_open",
    "Event streams open now, by channel (task, session, global, a2a)",
    ["channel"],
  );
  const frames = make(
    Counter,
    "storectl_stream_frames_total",
    "Frames taken for sending on event streams, by channel",
    ["channel"],
  );
  const cutOffs = make(
    Counter,
    "storectl_stream_cutoffs_total",
    "Streams cut off because their client fell behind (it resumes with Last-Event-ID), by channel",
    ["channel"],
  );
  const resumes = make(
    Counter,
    "storectl_stream_resumes_total",
    "Streams opened with a Last-Event-ID: clients resuming, by channel",
    ["channel"],
  );
  const storeCalls = new FastHistogram(
    "storectl_store_call_duration_seconds",
    "Store calls by family (the port and operation: tasks.get, events.append, hitSlidingWindow…)",
    DURATION_BUCKETS,
    registry,
  );
  const storeErrors = make(
    Counter,
    "storectl_store_call_errors_total",
    "Store calls that failed (timeouts, lost connections, refusals), by family",
    ["family"],
  );
  const deliveries = make(
    Counter,
    "storectl_webhook_attempts_total",
    "Webhook delivery attempts by outcome: delivered, retrying (to be tried again), failed (given up)",
    ["outcome"],
  );

  // The queue gauges are read from the store when scraped: any process sees the whole queue.
  const readBacklog = async () => {
    const rows = new Map<string, { labels: Record<string, string>; waiting: number; age: number }>();
    const at = now();
    for (const { tenant, lanes } of await options.backlog?.() ?? []) {
      for (const { lane, waiting: count, oldestAt } of lanes) {
        const labels: Record<string, string> = byTenant ? { lane, tenant: tenantLabel(tenant) } : { lane };
        const key = JSON.stringify(labels);
        const row = rows.get(key) ?? { labels, waiting: 0, age: 0 };
        row.waiting += count;
        if (oldestAt !== undefined) row.age = Math.max(row.age, (at - oldestAt) / 1000);
        rows.set(key, row);
      }
    }
    waiting.reset();
    oldest.reset();
    for (const row of rows.values()) {
      waiting.set(row.labels, row.waiting);
      oldest.set(row.labels, row.age);
    }
  };

  const tenantOf = (c: Context) => tenantLabel(callerOf(c)?.tenant);
  return {
    answered(c, started) {
      const method = c.req.method;
      const route = routeTemplate(c);
      const status = c.res.status;
      const labels = () => ({ method, route, status: String(status) });
      requests.observe(`${method} ${status} ${route}`, labels, (performance.now() - started) / 1000);
      if (byTenant) tenantRequests.inc({ tenant: tenantOf(c), code: `${Math.floor(status / 100)}xx` });
    },
    tasksOf(tenant) {
      const t = byTenant ? { tenant: tenantLabel(tenant) } : {};
      return {
        submitted: (kind) => submitted.inc({ kind, ...t }),
        finished: (kind, outcome) => finished.inc({ kind, outcome, ...t }),
        running: (kind, change) => running.inc({ kind }, change),
        takenOver: (lane) => takeovers.inc({ lane }),
        storeRetried: () => retries.inc(),
      };
    },
    streams: {
      opened: (channel) => streamsOpen.inc({ channel }),
      closed: (channel) => streamsOpen.dec({ channel }),
      frames: (channel, count) => frames.inc({ channel }, count),
      cutOff: (channel) => cutOffs.inc({ channel }),
      resumed: (channel) => resumes.inc({ channel }),
    },
    rateLimit: (decision) => decisions[decision]++,
    storeCalls(family, startedAt, answer) {
      answer.then(
        () => storeCalls.observe(family, () => ({ family }), (performance.now() - startedAt) / 1000),
        () => {
          storeCalls.observe(family, () => ({ family }), (performance.now() - startedAt) / 1000);
          storeErrors.inc({ family });
        },
      );
    },
    webhookAttempt: (outcome) => deliveries.inc({ outcome }),
    async render() {
      await readBacklog();
      return { text: await registry.metrics(), contentType: registry.contentType };
    },
  };
}

/** A tenant's label: itself for the first `cap` tenants seen, then {@link OTHER_TENANTS}; none: "". */
function tenantLabels(cap: number): (tenant?: string) => string {
  const seen = new Set<string>();
  return (tenant) => {
    if (tenant === undefined) return "";
    if (seen.has(tenant)) return tenant;
    if (seen.size >= cap) return OTHER_TENANTS;
    seen.add(tenant);
    return tenant;
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
