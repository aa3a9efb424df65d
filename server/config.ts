import { z } from "@hono/zod-openapi";
import type { LlmConfig } from "../lib/answer/mod.ts";
import { DEFAULT_MAX_FILE_BYTES } from "../lib/pipelines/mod.ts";
import { DEFAULT_SERVE_LIMITS, type ServeLimits } from "../lib/runtime/mod.ts";
import { DEFAULT_STORE_TIMEOUT_MS, isClusterUrl, parseClusterUrl, type StoreConfig } from "../lib/store/mod.ts";
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_LANE_CONCURRENCY,
  DEFAULT_TASK_LIMITS,
  type TaskLimits,
} from "../lib/tasks/mod.ts";
import { DEFAULT_RATE_LIMIT, type RateLimitConfig } from "./routes/rate_limited.ts";
import type { TaskApiConfig } from "./routes/tasks.ts";
import { type ChannelScope, DEFAULT_STREAMS, type StreamConfig } from "./routes/streams.ts";
import { parseAllowedHosts } from "./allowed_hosts.ts";
import { type A2AConfig, DEFAULT_A2A } from "./a2a/methods.ts";
import { DEFAULT_DELIVERY, type DeliveryConfig } from "../lib/webhooks/mod.ts";
import { SAMPLERS, type TracingConfig } from "./tracing.ts";

/** Everything the service reads from its environment. */
export interface ServerConfig {
  readonly port: number;
  readonly hostname: string;
  /** `METRICS_PORT`: the Prometheus metrics' own listener, on `hostname`; none: no metrics. */
  readonly metricsPort?: number;
  /** `METRICS_TENANT_LABEL` (with `METRICS_TENANT_CAP` tenants at most): metrics labelled by tenant. */
  readonly metricsTenantCap?: number;
  /** Traces over OTLP/HTTP, when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `…_TRACES_ENDPOINT`) is set; none: no tracing. */
  readonly tracing?: TracingConfig;
  /** `LOG_FORMAT`: `text` (default) or `json` (one object per line, and an access line per request). */
  readonly logFormat: "text" | "json";
  readonly store: StoreConfig;
  /** `STORE_TLS_CA_FILE`: a PEM file of CA certificates to trust for `rediss://` and `rediss-cluster://`. */
  readonly storeTlsCaFile?: string;
  readonly rateLimit: RateLimitConfig;
  readonly bodyLimitBytes: number;
  /** Connection ceiling, client timeouts and shutdown deadline of the listener. */
  readonly limits: ServeLimits;
  /** The drain on SIGTERM (docs/operations.md, "Shutdown"). */
  readonly drain: DrainConfig;
  readonly tasks: TaskServerConfig;
  readonly streams: StreamConfig;
  /** The model that writes `answer` tasks' answers (`LLM_BASE_URL`, `LLM_MODEL`, `LLM_API_KEY`); none: extractive. */
  readonly llm?: LlmConfig;
  readonly pipelines: {
    readonly sourceDir?: string;
    readonly engine: "compact" | "minisearch";
    /** `PIPELINE_MAX_FILE_BYTES`: a larger source file is skipped with a warning. */
    readonly maxFileBytes: number;
  };
  /** Access control. */
  readonly auth: AccessConfig;
  /** The A2A agent (`A2A_ENABLED`, `A2A_DEFAULT_KIND`). */
  readonly a2a: A2AConfig;
  /** `MCP_ENABLED`: the MCP server at `/mcp`; default true. */
  readonly mcpEnabled: boolean;
  /** `WEBHOOKS_ENABLED`, and how deliveries are made (`WEBHOOK_*`). */
  readonly webhooks: { readonly enabled: boolean; readonly delivery: DeliveryConfig };
}

/** What the process does between SIGTERM and closing its port. */
export interface DrainConfig {
  /**
   * `DRAIN_GRACE_MS`: how long it keeps accepting connections after SIGTERM (answering reads,
   * refusing new work with 503) so that a load balancer sees `/readyz` fail first; part of
   * `SHUTDOWN_TIMEOUT_MS`.
   */
  readonly graceMs: number;
  /** `DRAIN_RETRY_MS`: the `retry:` hint of the streams it ends, and (in whole seconds) the 503s' `Retry-After`. */
  readonly retryMs: number;
}

/** Who may call the service, and from which browser origins. */
export interface AccessConfig {
  /** `SERVICE_TOKENS_FILE`: the JSON file of token digests; none: the service runs open. */
  readonly tokensFile?: string;
  /** `ALLOW_ANONYMOUS`: run open on an address other than loopback. */
  readonly allowAnonymous: boolean;
  /** `CORS_ORIGINS`: the origins browsers may call from; empty: no CORS. */
  readonly corsOrigins: readonly string[];
  /**
   * `ALLOWED_HOSTS`: names besides localhost and IP addresses that requests may address (`Host`).
   * Running open, only those are answered (DNS rebinding); with tokens, any name unless some are
   * listed; `"any"`: every name (the edge entry, public under its platform's names).
   */
  readonly allowedHosts: readonly string[] | "any";
}

/** Whether `host` is this machine only: 127.0.0.0/8, ::1 or localhost. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** An origin as browsers send it: scheme, host and port, nothing else. */
const isOrigin = (v: string) =>
  URL.canParse(v) && /^https?:$/.test(new URL(v).protocol) && new URL(v).origin === v.replace(/\/$/, "");

/** Task settings: the API's defaults and the runner's. */
export interface TaskServerConfig extends TaskApiConfig {
  /** Root tasks of the default lane one process runs at once (`TASK_CONCURRENCY`). */
  readonly concurrency: number;
  /** Pipeline tasks one process runs at once, in a lane of their own (`PIPELINE_CONCURRENCY`). */
  readonly pipelineConcurrency: number;
  /** Kinds that run in a lane of their own, with their limits (`TASK_KIND_CONCURRENCY=answer=8,…`). */
  readonly kindConcurrency: Readonly<Record<string, number>>;
  /** How long a dead runner's task waits before another process takes it over (`TASK_LEASE_SECONDS`). */
  readonly leaseMs: number;
  /** Finished root tasks, their trees and events go this long after they end; 0 keeps them (`TASK_RETENTION_SECONDS`). */
  readonly retentionMs: number;
  readonly limits: TaskLimits;
}

const whole = (name: string, min: number, max: number) =>
  z.string().regex(/^\d+$/, `${name} must be a whole number`).transform(Number).refine(
    (n) => n >= min && n <= max,
    `${name} must be from ${min} to ${max}`,
  );

const HOUR_MS = 3_600_000;
const bool = (name: string) =>
  z.string().regex(/^(true|false|1|0)$/i, `${name} must be true or false`).transform((v) => /^(true|1)$/i.test(v));

const Env = z.object({
  PORT: whole("PORT", 0, 65535).default(8080),
  METRICS_PORT: whole("METRICS_PORT", 0, 65535).optional(),
  METRICS_TENANT_LABEL: bool("METRICS_TENANT_LABEL").default(false),
  METRICS_TENANT_CAP: whole("METRICS_TENANT_CAP", 1, 100_000).default(100),
  // Tracing: the standard OpenTelemetry variables (the exporter also reads OTEL_EXPORTER_OTLP_HEADERS and the like).
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url("OTEL_EXPORTER_OTLP_ENDPOINT must be a URL").optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be a URL").optional(),
  OTEL_TRACES_EXPORTER: z.enum(["otlp", "none"], { message: "OTEL_TRACES_EXPORTER must be otlp or none" })
    .default("otlp"),
  OTEL_SDK_DISABLED: bool("OTEL_SDK_DISABLED").default(false),
  OTEL_SERVICE_NAME: z.string().min(1).default("storectl"),
  OTEL_BSP_SCHEDULE_DELAY: whole("OTEL_BSP_SCHEDULE_DELAY", 1, HOUR_MS).default(5_000),
  OTEL_TRACES_SAMPLER: z.enum(SAMPLERS, { message: `OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(", ")}` })
    .default("parentbased_always_on"),
  OTEL_TRACES_SAMPLER_ARG: z.string().regex(
    /^(0(\.\d+)?|1(\.0+)?)$/,
    "OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1",
  )
    .transform(Number).optional(),
  LOG_FORMAT: z.enum(["text", "json"], { message: "LOG_FORMAT must be text or json" }).default("text"),
  HOST: z.string().min(1).default("127.0.0.1"),
  STORE_URL: z.string().regex(
    /^(memory:|rediss?:\/\/.+|rediss?-cluster:.*)$/,
    "STORE_URL must be memory:, redis://…, rediss://…, redis-cluster://… or rediss-cluster://…",
  ).superRefine((url, ctx) => {
    if (!isClusterUrl(url)) return;
    try {
      parseClusterUrl(url);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message });
    }
  }).default("memory:"),
  STORE_PASSWORD: z.string().optional(),
  STORE_TLS_CA_FILE: z.string().optional(),
  STORE_KEY_PREFIX: z.string().default("storectl:"),
  UPSTASH_REDIS_REST_URL: z.string().url("UPSTASH_REDIS_REST_URL must be a URL").optional(),
  UPSTASH_REDIS_REST_TOKEN: z.string().min(1).optional(),
  RATE_LIMIT_MAX: whole("RATE_LIMIT_MAX", 1, 1_000_000).default(DEFAULT_RATE_LIMIT.limit),
  RATE_LIMIT_WINDOW_SECONDS: whole("RATE_LIMIT_WINDOW_SECONDS", 1, 86_400).default(DEFAULT_RATE_LIMIT.windowMs / 1000),
  RATE_LIMIT_ROUTES: z.string().default(DEFAULT_RATE_LIMIT.routes.join(",")),
  BODY_LIMIT_BYTES: whole("BODY_LIMIT_BYTES", 1, 1024 ** 3).default(1024 * 1024),
  MAX_CONNECTIONS: whole("MAX_CONNECTIONS", 1, 1_000_000).default(DEFAULT_SERVE_LIMITS.maxConnections),
  HEADERS_TIMEOUT_MS: whole("HEADERS_TIMEOUT_MS", 1, HOUR_MS).default(DEFAULT_SERVE_LIMITS.headersTimeoutMs),
  KEEP_ALIVE_TIMEOUT_MS: whole("KEEP_ALIVE_TIMEOUT_MS", 1, HOUR_MS).default(DEFAULT_SERVE_LIMITS.keepAliveTimeoutMs),
  BODY_TIMEOUT_MS: whole("BODY_TIMEOUT_MS", 1, HOUR_MS).default(DEFAULT_SERVE_LIMITS.bodyTimeoutMs),
  SHUTDOWN_TIMEOUT_MS: whole("SHUTDOWN_TIMEOUT_MS", 0, HOUR_MS).default(DEFAULT_SERVE_LIMITS.shutdownTimeoutMs),
  DRAIN_GRACE_MS: whole("DRAIN_GRACE_MS", 0, HOUR_MS).default(0),
  DRAIN_RETRY_MS: whole("DRAIN_RETRY_MS", 100, 60_000).default(1_000),
  STORE_TIMEOUT_MS: whole("STORE_TIMEOUT_MS", 1, 60_000).default(DEFAULT_STORE_TIMEOUT_MS),
  // Tasks
  CASCADE_CANCEL: bool("CASCADE_CANCEL").default(true),
  TASK_CONCURRENCY: whole("TASK_CONCURRENCY", 1, 10_000).default(DEFAULT_CONCURRENCY),
  PIPELINE_CONCURRENCY: whole("PIPELINE_CONCURRENCY", 1, 10_000).default(DEFAULT_LANE_CONCURRENCY),
  TASK_KIND_CONCURRENCY: z.string().default("").transform((v, ctx) => {
    const pairs = v.split(",").map((p) => p.trim()).filter(Boolean);
    const bad = pairs.filter((p) =>
      !/^[^=\s]+=\d+$/.test(p) || !(Number(p.split("=")[1]) >= 1 && Number(p.split("=")[1]) <= 10_000)
    );
    if (bad.length > 0) {
      ctx.addIssue({
        code: "custom",
        message:
          `TASK_KIND_CONCURRENCY must list kind=limit pairs (limits 1 to 10000), e.g. answer=8,pipeline_full=1; not ${
            bad.map((p) => `'${p}'`).join(", ")
          }`,
      });
      return z.NEVER;
    }
    return Object.fromEntries(pairs.map((p) => [p.split("=")[0], Number(p.split("=")[1])]));
  }),
  TASK_LEASE_SECONDS: whole("TASK_LEASE_SECONDS", 1, 3_600).default(30),
  TASK_RETENTION_SECONDS: whole("TASK_RETENTION_SECONDS", 0, 365 * 86_400).default(86_400),
  TASK_MAX_TREE_TASKS: whole("TASK_MAX_TREE_TASKS", 1, 1_000_000).default(DEFAULT_TASK_LIMITS.treeTasks),
  TASK_MAX_EVENTS: whole("TASK_MAX_EVENTS", 2, 100_000_000).default(DEFAULT_TASK_LIMITS.taskEvents),
  TASK_MAX_TREE_EVENTS: whole("TASK_MAX_TREE_EVENTS", 2, 1_000_000_000).default(DEFAULT_TASK_LIMITS.treeEvents),
  TENANT_MAX_LIVE_TASKS: whole("TENANT_MAX_LIVE_TASKS", 1, 100_000_000).default(DEFAULT_TASK_LIMITS.liveTasks),
  TENANT_MAX_STORED_TASKS: whole("TENANT_MAX_STORED_TASKS", 1, 1_000_000_000).default(DEFAULT_TASK_LIMITS.storedTasks),
  TENANT_MAX_STORED_EVENTS: whole("TENANT_MAX_STORED_EVENTS", 1, 1_000_000_000_000).default(
    DEFAULT_TASK_LIMITS.storedEvents,
  ),
  IDEMPOTENCY_TTL_SECONDS: whole("IDEMPOTENCY_TTL_SECONDS", 1, 30 * 86_400).default(86_400),
  STREAMING_ENABLED: bool("STREAMING_ENABLED").default(true),
  A2A_ENABLED: bool("A2A_ENABLED").default(DEFAULT_A2A.enabled),
  MCP_ENABLED: bool("MCP_ENABLED").default(true),
  WEBHOOKS_ENABLED: bool("WEBHOOKS_ENABLED").default(true),
  WEBHOOK_ALLOW_HTTP: bool("WEBHOOK_ALLOW_HTTP").default(false),
  WEBHOOK_ALLOW_HOSTS: z.string().default("").transform((v) =>
    v.split(",").map((h) => h.trim().toLowerCase()).filter(Boolean)
  ),
  WEBHOOK_TIMEOUT_MS: whole("WEBHOOK_TIMEOUT_MS", 100, 60_000).default(DEFAULT_DELIVERY.timeoutMs),
  WEBHOOK_RETRY_HOURS: z.coerce.number({ message: "WEBHOOK_RETRY_HOURS must be a number of hours" })
    .min(0, "WEBHOOK_RETRY_HOURS must be from 0 to 720").max(720, "WEBHOOK_RETRY_HOURS must be from 0 to 720")
    .default(DEFAULT_DELIVERY.retryWindowMs / 3_600_000),
  A2A_DEFAULT_KIND: z.string().min(1, "A2A_DEFAULT_KIND must name a task kind").default(DEFAULT_A2A.defaultKind),
  CHANNEL_SCOPES: z.string().default(DEFAULT_STREAMS.scopes.join(","))
    .transform((v) => v.split(",").map((s) => s.trim().toUpperCase()).filter(Boolean))
    .refine(
      (scopes) => scopes.every((s) => ["TASK", "SESSION", "GLOBAL"].includes(s)),
      "CHANNEL_SCOPES must be a comma-separated list of TASK, SESSION and GLOBAL",
    ),
  STREAM_HEARTBEAT_MS: whole("STREAM_HEARTBEAT_MS", 100, 15_000).default(DEFAULT_STREAMS.heartbeatMs),
  STREAM_BUFFER_BYTES: whole("STREAM_BUFFER_BYTES", 1024, 1024 ** 3).default(DEFAULT_STREAMS.bufferBytes),
  // Answers: an OpenAI-compatible chat-completions endpoint
  LLM_BASE_URL: z.string().refine(
    (v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol),
    "LLM_BASE_URL must be an http:// or https:// URL, e.g. http://127.0.0.1:11434/v1",
  ).optional(),
  LLM_MODEL: z.string().min(1).optional(),
  LLM_API_KEY: z.string().min(1).optional(),
  // Pipelines
  PIPELINE_SOURCE_DIR: z.string().refine((v) => !v.includes("\0"), "PIPELINE_SOURCE_DIR must be a folder path")
    .optional(),
  SEARCH_ENGINE: z.enum(["compact", "minisearch"], "SEARCH_ENGINE must be compact or minisearch").default("compact"),
  PIPELINE_MAX_FILE_BYTES: whole("PIPELINE_MAX_FILE_BYTES", 1, 1024 ** 3).default(DEFAULT_MAX_FILE_BYTES),
  // Access control
  SERVICE_TOKENS_FILE: z.string().refine((v) => !v.includes("\0"), "SERVICE_TOKENS_FILE must be a file path")
    .optional(),
  ALLOW_ANONYMOUS: bool("ALLOW_ANONYMOUS").default(false),
  CORS_ORIGINS: z.string().default("").transform((v, ctx) => {
    const origins = v.split(",").map((o) => o.trim()).filter(Boolean);
    const bad = origins.filter((o) => !isOrigin(o));
    if (bad.length > 0) {
      ctx.addIssue({
        code: "custom",
        message: `CORS_ORIGINS must name each origin as scheme://host[:port], e.g. https://app.example.com; not ${
          bad.map((o) => `'${o}'`).join(", ")
        }${bad.includes("*") ? " (any origin is not offered: name each origin)" : ""}`,
      });
      return z.NEVER;
    }
    return origins.map((o) => o.replace(/\/$/, ""));
  }),
  ALLOWED_HOSTS: z.string().default("").transform((v, ctx) => {
    try {
      return parseAllowedHosts(v);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message });
      return z.NEVER;
    }
  }),
}).refine((e) => !e.UPSTASH_REDIS_REST_URL === !e.UPSTASH_REDIS_REST_TOKEN, {
  message: "UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN go together: set both or neither",
}).refine((e) => !e.LLM_BASE_URL || e.LLM_MODEL, {
  message: "LLM_MODEL is required when LLM_BASE_URL is set: name the model to ask, e.g. LLM_MODEL=llama3.1",
}).superRefine((e, ctx) => {
  if (isLoopback(e.HOST) || e.SERVICE_TOKENS_FILE || e.ALLOW_ANONYMOUS) return;
  ctx.addIssue({
    code: "custom",
    message: `HOST=${e.HOST} is not a loopback address and no SERVICE_TOKENS_FILE is set: anyone who can reach ` +
      "it could read and change every task. Set SERVICE_TOKENS_FILE (tokens), or ALLOW_ANONYMOUS=true to run open " +
      "on purpose",
  });
}).refine((e) => e.DRAIN_GRACE_MS === 0 || e.DRAIN_GRACE_MS < e.SHUTDOWN_TIMEOUT_MS, {
  message: "DRAIN_GRACE_MS must be less than SHUTDOWN_TIMEOUT_MS (the grace is part of the shutdown's time): " +
    "lower it, or raise SHUTDOWN_TIMEOUT_MS",
}).refine((e) => e.LLM_BASE_URL || (!e.LLM_MODEL && !e.LLM_API_KEY), {
  message: "LLM_MODEL and LLM_API_KEY take effect only with LLM_BASE_URL: set it, or unset them for extractive answers",
});

/** Every variable the service reads (for the configuration reference's completeness test). */
export const SERVICE_VARIABLES: readonly string[] = Object.keys(Env.shape);

/**
 * Reads and validates the configuration; throws an error listing every bad variable. `from`
 * names where the values came from in that error (an edge entry's `bindings`).
 *
 * @example
 * ```ts
 * const config = loadServerConfig({ PORT: "8080", STORE_URL: "redis://127.0.0.1:6379" });
 * ```
 */
export function loadServerConfig(
  env: Readonly<Record<string, string | undefined>>,
  from = "configuration",
): ServerConfig {
  const parsed = Env.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== "")));
  if (!parsed.success) {
    throw new Error(`Invalid ${from}:\n${parsed.error.issues.map((i) => `  - ${i.message}`).join("\n")}`);
  }
  const e = parsed.data;
  const routes = e.RATE_LIMIT_ROUTES.split(",").map((r) => r.trim()).filter(Boolean);
  return {
    port: e.PORT,
    ...(e.METRICS_PORT !== undefined && { metricsPort: e.METRICS_PORT }),
    ...(e.METRICS_TENANT_LABEL && { metricsTenantCap: e.METRICS_TENANT_CAP }),
    ...((e.OTEL_EXPORTER_OTLP_ENDPOINT || e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) && !e.OTEL_SDK_DISABLED &&
      e.OTEL_TRACES_EXPORTER === "otlp" &&
      {
        tracing: {
          serviceName: e.OTEL_SERVICE_NAME,
          scheduleDelayMs: e.OTEL_BSP_SCHEDULE_DELAY,
          sampler: e.OTEL_TRACES_SAMPLER,
          ratio: e.OTEL_TRACES_SAMPLER_ARG ?? 1,
        },
      }),
    logFormat: e.LOG_FORMAT,
    hostname: e.HOST,
    store: {
      url: e.STORE_URL,
      ...(e.STORE_PASSWORD !== undefined && { password: e.STORE_PASSWORD }),
      prefix: e.STORE_KEY_PREFIX,
      timeoutMs: e.STORE_TIMEOUT_MS,
      ...(e.UPSTASH_REDIS_REST_URL &&
        { upstash: { url: e.UPSTASH_REDIS_REST_URL, token: e.UPSTASH_REDIS_REST_TOKEN! } }),
    },
    ...(e.STORE_TLS_CA_FILE !== undefined && { storeTlsCaFile: e.STORE_TLS_CA_FILE }),
    rateLimit: { routes, limit: e.RATE_LIMIT_MAX, windowMs: e.RATE_LIMIT_WINDOW_SECONDS * 1000 },
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    limits: {
      maxConnections: e.MAX_CONNECTIONS,
      headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
      bodyTimeoutMs: e.BODY_TIMEOUT_MS,
      shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    },
    drain: { graceMs: e.DRAIN_GRACE_MS, retryMs: e.DRAIN_RETRY_MS },
    tasks: {
      cascadeCancel: e.CASCADE_CANCEL,
      concurrency: e.TASK_CONCURRENCY,
      pipelineConcurrency: e.PIPELINE_CONCURRENCY,
      kindConcurrency: e.TASK_KIND_CONCURRENCY,
      leaseMs: e.TASK_LEASE_SECONDS * 1000,
      retentionMs: e.TASK_RETENTION_SECONDS * 1000,
      idempotencyTtlMs: e.IDEMPOTENCY_TTL_SECONDS * 1000,
      limits: {
        treeTasks: e.TASK_MAX_TREE_TASKS,
        taskEvents: e.TASK_MAX_EVENTS,
        treeEvents: e.TASK_MAX_TREE_EVENTS,
        liveTasks: e.TENANT_MAX_LIVE_TASKS,
        storedTasks: e.TENANT_MAX_STORED_TASKS,
        storedEvents: e.TENANT_MAX_STORED_EVENTS,
      },
    },
    streams: {
      enabled: e.STREAMING_ENABLED,
      scopes: [...new Set(e.CHANNEL_SCOPES)] as ChannelScope[],
      heartbeatMs: e.STREAM_HEARTBEAT_MS,
      bufferBytes: e.STREAM_BUFFER_BYTES,
    },
    ...(e.LLM_BASE_URL &&
      { llm: { baseUrl: e.LLM_BASE_URL, model: e.LLM_MODEL!, ...(e.LLM_API_KEY && { apiKey: e.LLM_API_KEY }) } }),
    pipelines: {
      engine: e.SEARCH_ENGINE,
      ...(e.PIPELINE_SOURCE_DIR && { sourceDir: e.PIPELINE_SOURCE_DIR }),
      maxFileBytes: e.PIPELINE_MAX_FILE_BYTES,
    },
    auth: {
      ...(e.SERVICE_TOKENS_FILE && { tokensFile: e.SERVICE_TOKENS_FILE }),
      allowAnonymous: e.ALLOW_ANONYMOUS,
      corsOrigins: e.CORS_ORIGINS,
      allowedHosts: e.ALLOWED_HOSTS,
    },
    a2a: { enabled: e.A2A_ENABLED, defaultKind: e.A2A_DEFAULT_KIND },
    mcpEnabled: e.MCP_ENABLED,
    webhooks: {
      enabled: e.WEBHOOKS_ENABLED,
      delivery: {
        timeoutMs: e.WEBHOOK_TIMEOUT_MS,
        retryWindowMs: e.WEBHOOK_RETRY_HOURS * 3_600_000,
        policy: { allowHttp: e.WEBHOOK_ALLOW_HTTP, allowHosts: e.WEBHOOK_ALLOW_HOSTS },
      },
    },
  };
}
