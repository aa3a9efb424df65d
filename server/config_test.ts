import { assertEquals, assertMatch, assertThrows } from "../testing/assert.ts";
import { loadServerConfig } from "./config.ts";
import { DEFAULT_TASK_LIMITS } from "../lib/tasks/mod.ts";

Deno.test("loadServerConfig() has the specification's defaults", () => {
  const config = loadServerConfig({});
  assertEquals(config.port, 8080);
  assertEquals(config.hostname, "127.0.0.1");
  assertEquals(config.store, { url: "memory:", prefix: "storectl:", timeoutMs: 1000 });
  assertEquals(config.rateLimit, { routes: ["/api/RateLimited/sliding"], limit: 10, windowMs: 30_000 });
});

Deno.test("loadServerConfig() reads Redis, Upstash and rate-limit settings", () => {
  const config = loadServerConfig({
    PORT: "0",
    STORE_URL: "rediss://cache:6380",
    UPSTASH_REDIS_REST_URL: "https://up.example.test",
    UPSTASH_REDIS_REST_TOKEN: "t",
    RATE_LIMIT_MAX: "5",
    RATE_LIMIT_WINDOW_SECONDS: "60",
    RATE_LIMIT_ROUTES: "/a, /b",
    STORE_TIMEOUT_MS: "250",
  });
  assertEquals(config.store.timeoutMs, 250);
  assertEquals(config.store.upstash, { url: "https://up.example.test", token: "t" });
  assertEquals(config.rateLimit, { routes: ["/a", "/b"], limit: 5, windowMs: 60_000 });
});

Deno.test("loadServerConfig() reads a Redis Cluster URL and STORE_PASSWORD, and says what is wrong with a bad one", () => {
  const config = loadServerConfig({ STORE_URL: "redis-cluster://10.0.0.1:7000,10.0.0.2:7000", STORE_PASSWORD: "pw" });
  assertEquals(config.store.url, "redis-cluster://10.0.0.1:7000,10.0.0.2:7000");
  assertEquals(config.store.password, "pw");
  assertEquals(loadServerConfig({ STORE_URL: "rediss-cluster://:p@h1:1" }).store.url, "rediss-cluster://:p@h1:1");
  for (
    const [url, words] of [
      ["redis-cluster://", /STORE_URL names no cluster node/],
      ["redis-cluster://h1:7000,h2:port", /cluster node 'h2:port' is not host:port/],
    ] as const
  ) {
    try {
      loadServerConfig({ STORE_URL: url });
      throw new Error("expected a failure");
    } catch (error) {
      assertMatch((error as Error).message, words);
    }
  }
});

Deno.test("loadServerConfig() lists every bad variable", () => {
  try {
    loadServerConfig({
      PORT: "http",
      STORE_URL: "mysql://x",
      RATE_LIMIT_MAX: "0",
      UPSTASH_REDIS_REST_URL: "https://x",
      STORE_TIMEOUT_MS: "0",
    });
    throw new Error("expected a failure");
  } catch (error) {
    const message = (error as Error).message;
    assertMatch(message, /^Invalid configuration:/);
    assertMatch(message, /PORT must be a whole number/);
    assertMatch(
      message,
      /STORE_URL must be memory:, redis:\/\/…, rediss:\/\/…, redis-cluster:\/\/… or rediss-cluster:\/\/…/,
    );
    assertMatch(message, /RATE_LIMIT_MAX must be from 1 to 1000000/);
    assertMatch(message, /STORE_TIMEOUT_MS must be from 1 to 60000/);
  }
  try {
    loadServerConfig({ UPSTASH_REDIS_REST_URL: "https://x" });
    throw new Error("expected a failure");
  } catch (error) {
    assertMatch((error as Error).message, /UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN go together/);
  }
});

Deno.test("loadServerConfig() has connection and timeout defaults, and reads them", () => {
  assertEquals(loadServerConfig({}).limits, {
    maxConnections: 10_000,
    headersTimeoutMs: 10_000,
    keepAliveTimeoutMs: 5_000,
    bodyTimeoutMs: 30_000,
    shutdownTimeoutMs: 10_000,
  });
  assertEquals(
    loadServerConfig({
      MAX_CONNECTIONS: "200",
      HEADERS_TIMEOUT_MS: "1000",
      KEEP_ALIVE_TIMEOUT_MS: "500",
      BODY_TIMEOUT_MS: "2000",
      SHUTDOWN_TIMEOUT_MS: "0",
    }).limits,
    { maxConnections: 200, headersTimeoutMs: 1000, keepAliveTimeoutMs: 500, bodyTimeoutMs: 2000, shutdownTimeoutMs: 0 },
  );
});

Deno.test("loadServerConfig() rejects connection and timeout settings out of range, naming each", () => {
  try {
    loadServerConfig({
      MAX_CONNECTIONS: "0",
      HEADERS_TIMEOUT_MS: "10s",
      KEEP_ALIVE_TIMEOUT_MS: "0",
      BODY_TIMEOUT_MS: "-1",
      SHUTDOWN_TIMEOUT_MS: "99999999",
    });
    throw new Error("expected a failure");
  } catch (error) {
    const message = (error as Error).message;
    assertMatch(message, /MAX_CONNECTIONS must be from 1 to 1000000/);
    assertMatch(message, /HEADERS_TIMEOUT_MS must be a whole number/);
    assertMatch(message, /KEEP_ALIVE_TIMEOUT_MS must be from 1 to 3600000/);
    assertMatch(message, /BODY_TIMEOUT_MS must be a whole number/);
    assertMatch(message, /SHUTDOWN_TIMEOUT_MS must be from 0 to 3600000/);
  }
});

Deno.test("loadServerConfig() reads the drain: no grace and a 1 s retry hint by default; a grace as long as the shutdown is refused", () => {
  assertEquals(loadServerConfig({}).drain, { graceMs: 0, retryMs: 1_000 });
  assertEquals(loadServerConfig({ DRAIN_GRACE_MS: "2000", DRAIN_RETRY_MS: "2500" }).drain, {
    graceMs: 2_000,
    retryMs: 2_500,
  });
  assertThrows(
    () => loadServerConfig({ DRAIN_GRACE_MS: "5000", SHUTDOWN_TIMEOUT_MS: "5000" }),
    /DRAIN_GRACE_MS must be less than SHUTDOWN_TIMEOUT_MS .*raise SHUTDOWN_TIMEOUT_MS/,
  );
  assertThrows(() => loadServerConfig({ DRAIN_RETRY_MS: "0" }), /DRAIN_RETRY_MS must be from 100 to 60000/);
});

Deno.test("loadServerConfig() reads and checks the task settings", () => {
  assertEquals(loadServerConfig({}).tasks, {
    cascadeCancel: true,
    concurrency: 256,
    pipelineConcurrency: 2,
    kindConcurrency: {},
    leaseMs: 30_000,
    retentionMs: 86_400_000,
    idempotencyTtlMs: 86_400_000,
    limits: DEFAULT_TASK_LIMITS,
  });
  assertEquals(
    loadServerConfig({
      CASCADE_CANCEL: "false",
      TASK_CONCURRENCY: "2",
      TASK_LEASE_SECONDS: "5",
      TASK_RETENTION_SECONDS: "0",
      IDEMPOTENCY_TTL_SECONDS: "60",
      TASK_MAX_TREE_TASKS: "10",
      TENANT_MAX_STORED_EVENTS: "5000",
    }).tasks,
    {
      cascadeCancel: false,
      concurrency: 2,
      pipelineConcurrency: 2,
      kindConcurrency: {},
      leaseMs: 5_000,
      retentionMs: 0,
      idempotencyTtlMs: 60_000,
      limits: { ...DEFAULT_TASK_LIMITS, treeTasks: 10, storedEvents: 5_000 },
    },
  );
  try {
    loadServerConfig({
      CASCADE_CANCEL: "sometimes",
      TASK_CONCURRENCY: "0",
      TASK_RETENTION_SECONDS: "-1",
      IDEMPOTENCY_TTL_SECONDS: "0",
      TASK_MAX_EVENTS: "1",
      TENANT_MAX_LIVE_TASKS: "many",
    });
    throw new Error("expected a failure");
  } catch (error) {
    assertMatch((error as Error).message, /CASCADE_CANCEL must be true or false/);
    assertMatch((error as Error).message, /TASK_CONCURRENCY must be from 1 to 10000/);
    assertMatch((error as Error).message, /TASK_RETENTION_SECONDS must be a whole number/);
    assertMatch((error as Error).message, /IDEMPOTENCY_TTL_SECONDS must be from 1 to 2592000/);
    assertMatch((error as Error).message, /TASK_MAX_EVENTS must be from 2 to 100000000/);
    assertMatch((error as Error).message, /TENANT_MAX_LIVE_TASKS must be a whole number/);
  }
});

Deno.test("loadServerConfig() reads the task lanes: PIPELINE_CONCURRENCY and TASK_KIND_CONCURRENCY", () => {
  const { tasks } = loadServerConfig({
    PIPELINE_CONCURRENCY: "3",
    TASK_KIND_CONCURRENCY: " answer=4, pipeline_full=1 ",
  });
  assertEquals([tasks.pipelineConcurrency, tasks.kindConcurrency], [3, { answer: 4, pipeline_full: 1 }]);
  try {
    loadServerConfig({ PIPELINE_CONCURRENCY: "0", TASK_KIND_CONCURRENCY: "answer=4,demo,retrieve=0" });
    throw new Error("expected a failure");
  } catch (error) {
    assertMatch((error as Error).message, /PIPELINE_CONCURRENCY must be from 1 to 10000/);
    assertMatch(
      (error as Error).message,
      /TASK_KIND_CONCURRENCY must list kind=limit pairs \(limits 1 to 10000\), e\.g\. answer=8,pipeline_full=1; not 'demo', 'retrieve=0'/,
    );
  }
});

Deno.test("loadServerConfig() reads and checks the streaming settings", () => {
  assertEquals(loadServerConfig({}).streams, {
    enabled: true,
    scopes: ["TASK", "SESSION"],
    heartbeatMs: 15_000,
    bufferBytes: 131_072,
  });
  const config = loadServerConfig({
    STREAMING_ENABLED: "false",
    CHANNEL_SCOPES: "task, global,TASK",
    STREAM_HEARTBEAT_MS: "1000",
    STREAM_BUFFER_BYTES: "65536",
  });
  assertEquals(
    [config.streams.enabled, config.streams.scopes, config.streams.heartbeatMs, config.streams.bufferBytes],
    [false, ["TASK", "GLOBAL"], 1_000, 65_536],
  );
  try {
    loadServerConfig({
      STREAMING_ENABLED: "yes",
      CHANNEL_SCOPES: "TASK,USER",
      STREAM_HEARTBEAT_MS: "20000",
      STREAM_BUFFER_BYTES: "10",
    });
    throw new Error("expected a failure");
  } catch (error) {
    assertMatch((error as Error).message, /STREAMING_ENABLED must be true or false/);
    assertMatch((error as Error).message, /CHANNEL_SCOPES must be a comma-separated list of TASK, SESSION and GLOBAL/);
    assertMatch((error as Error).message, /STREAM_HEARTBEAT_MS must be from 100 to 15000/);
    assertMatch((error as Error).message, /STREAM_BUFFER_BYTES must be from 1024 to 1073741824/);
  }
});

Deno.test("loadServerConfig() reads the answer model: LLM_BASE_URL, LLM_MODEL and the optional LLM_API_KEY", () => {
  assertEquals(loadServerConfig({}).llm, undefined);
  assertEquals(loadServerConfig({ LLM_BASE_URL: "http://127.0.0.1:11434/v1", LLM_MODEL: "llama3.1" }).llm, {
    baseUrl: "http://127.0.0.1:11434/v1",
    model: "llama3.1",
  });
  assertEquals(
    loadServerConfig({ LLM_BASE_URL: "https://llm.example/v1", LLM_MODEL: "m", LLM_API_KEY: "sk-1" }).llm,
    { baseUrl: "https://llm.example/v1", model: "m", apiKey: "sk-1" },
  );
});

Deno.test("loadServerConfig() refuses a model URL that is not http(s), a URL without a model, and a model without a URL", () => {
  const failure = (env: Record<string, string>) => {
    try {
      loadServerConfig(env);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error("expected a failure");
  };
  for (const url of ["ftp://llm.example/v1", "llm.example/v1", "http//x"]) {
    const message = failure({ LLM_BASE_URL: url, LLM_MODEL: "m", LLM_API_KEY: "sk-secret" });
    assertMatch(message, /LLM_BASE_URL must be an http:\/\/ or https:\/\/ URL/);
    assertEquals(message.includes("sk-secret"), false);
  }
  assertMatch(failure({ LLM_BASE_URL: "http://127.0.0.1:1/v1" }), /LLM_MODEL is required when LLM_BASE_URL is set/);
  assertMatch(failure({ LLM_MODEL: "m" }), /LLM_MODEL and LLM_API_KEY take effect only with LLM_BASE_URL/);
  assertMatch(failure({ LLM_API_KEY: "k" }), /LLM_MODEL and LLM_API_KEY take effect only with LLM_BASE_URL/);
});

Deno.test("loadServerConfig() reads the pipeline settings and refuses an unknown search engine or file limit", () => {
  assertEquals(loadServerConfig({}).pipelines, { engine: "compact", maxFileBytes: 10_000_000 });
  assertEquals(
    loadServerConfig({ PIPELINE_SOURCE_DIR: "/srv/docs", SEARCH_ENGINE: "minisearch", PIPELINE_MAX_FILE_BYTES: "5000" })
      .pipelines,
    { engine: "minisearch", sourceDir: "/srv/docs", maxFileBytes: 5_000 },
  );
  for (const bad of ["0", "10MB", "2000000000"]) {
    try {
      loadServerConfig({ PIPELINE_MAX_FILE_BYTES: bad });
      throw new Error("expected a failure");
    } catch (error) {
      assertMatch((error as Error).message, /PIPELINE_MAX_FILE_BYTES must be (a whole number|from 1 to 1073741824)/);
    }
  }
  try {
    loadServerConfig({ SEARCH_ENGINE: "lucene" });
    throw new Error("expected a failure");
  } catch (error) {
    assertMatch((error as Error).message, /SEARCH_ENGINE must be compact or minisearch/);
  }
});

Deno.test("loadServerConfig() traces only with an OTLP endpoint, and reads the standard OTEL_* settings", () => {
  assertEquals(loadServerConfig({}).tracing, undefined);
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" };
  assertEquals(loadServerConfig(endpoint).tracing, {
    serviceName: "storectl",
    scheduleDelayMs: 5_000,
    sampler: "parentbased_always_on",
    ratio: 1,
  });
  assertEquals(loadServerConfig({ ...endpoint, OTEL_SDK_DISABLED: "true" }).tracing, undefined);
  assertEquals(loadServerConfig({ ...endpoint, OTEL_TRACES_EXPORTER: "none" }).tracing, undefined);
  const sampled = { ...endpoint, OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.25" };
  assertEquals(loadServerConfig(sampled).tracing?.ratio, 0.25);
  assertThrows(
    () => loadServerConfig({ ...endpoint, OTEL_TRACES_SAMPLER: "jaeger_remote", OTEL_TRACES_SAMPLER_ARG: "2" }),
    /OTEL_TRACES_SAMPLER must be one of always_on[\s\S]*OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1/,
  );
  assertThrows(
    () => loadServerConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" }),
    /OTEL_EXPORTER_OTLP_ENDPOINT must be a URL/,
  );
});
