/**
 * The service without its HTTP face: the store, each tenant's scope (its view of the store, task
 * runner and search index), the task kinds, and the retention, built once from the one
 * configuration and closed as one. Every entry makes it the same way (config → service → app →
 * listen → close): `main.ts` for Deno and Node, `edge.ts` for edge runtimes, tests through
 * `testing/service.ts`.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from "../lib/store/mod.ts";
 * import { loadServerConfig } from "./config.ts";
 * import { createService } from "./service.ts";
 * const service = createService(loadServerConfig({}), { store: createMemoryStore() });
 * await service.scope().runner.submit({ kind: "demo", input: { steps: 1 } });
 * await service.close();
 * ```
 *
 * @module
 */
import { answerTasks, type LlmConfig, type Retriever } from "../lib/answer/mod.ts";
import {
  type AsyncEngine,
  createSearchIndex,
  type EngineName,
  type PipelineSource,
  pipelineTasks,
  type SearchIndex,
} from "../lib/pipelines/mod.ts";
import { observeStore, type Store, type StoreOutage, storeOutage } from "../lib/store/mod.ts";
import { isTracing } from "../lib/tracing/mod.ts";
import { createTaskRunner, demoTask, type TaskDefinition, type TaskRunner } from "../lib/tasks/mod.ts";
import type { ServerConfig } from "./config.ts";
import { sharedChannels } from "./routes/streams.ts";
import type { TokenSet } from "./auth/tokens.ts";
import { type Dispatcher, startDispatcher } from "../lib/webhooks/mod.ts";
import { a2aPushBody } from "./a2a/wire.ts";
import { createMetrics, type Metrics } from "./metrics.ts";
import type { Log } from "./log.ts";
import { storeSpans } from "./tracing.ts";
import { Draining } from "./errors.ts";

/** What an entry gives the service besides its settings: the effects of where it runs. */
export interface ServiceParts {
  readonly store: Store;
  /** The bearer tokens (`SERVICE_TOKENS_FILE`'s, or an edge binding's); none: the service runs open. */
  readonly tokens?: TokenSet;
  /** The folder the pipelines read (`PIPELINE_SOURCE_DIR`), as the entry opened it. */
  readonly source?: PipelineSource;
  /** Runs a search engine in a thread of its own, where the runtime has threads; else in this one. */
  readonly searchWorker?: (engine: EngineName) => AsyncEngine;
  /** The fetch of the model's requests (`answer` tasks). Default: the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Task kinds besides the built-in ones (a library user's own). */
  readonly kinds?: readonly TaskDefinition[];
  /** What `answer` and `retrieve` search instead of each scope's index (a fixed one in tests). */
  readonly retriever?: Retriever;
  /** Where log lines go. Default: stderr. */
  /** Where log lines go (`formatLog` makes one); default: stderr as text. */
  readonly log?: Log;
  /** Where debug lines go (clients that time out or leave mid-body). Default: nowhere. */
  readonly debug?: (line: string) => void;
  /** The clock of log lines that say how long something lasted. Default: `Date.now`. */
  readonly now?: () => number;
  /**
   * Whether this entry delivers webhooks (`WEBHOOKS_ENABLED` permitting): a long-running process
   * does; the edge entry, which runs nothing between requests, does not. Default true.
   */
  readonly deliversWebhooks?: boolean;
}

/** One tenant's view of the store, with its own task runner and search index. */
export interface Scope {
  readonly store: Store;
  readonly runner: TaskRunner;
  readonly search: SearchIndex;
  /** Its webhook deliveries, when the service makes them. */
  readonly dispatcher?: Dispatcher;
}

/** The service: its settings, store and scopes; `close()` ends everything it started. */
export interface Service {
  readonly config: ServerConfig;
  readonly store: Store;
  readonly tokens?: TokenSet;
  readonly source?: PipelineSource;
  /** Whether it delivers webhooks (and so offers them, and A2A push notifications). */
  readonly webhooks: boolean;
  /** Every task kind it runs (for `/openapi.json`). */
  readonly kinds: readonly TaskDefinition[];
  /** Logs store outages once when one starts and once when it ends (the routes' and the runners'). */
  readonly outage: StoreOutage;
  /** What it counts, with `METRICS_PORT`. */
  readonly metrics?: Metrics;
  readonly log: Log;
  readonly debug?: (line: string) => void;
  /** A tenant's scope, or (no tenant) the store's own, running open; made on first use, kept until `close()`. */
  scope(tenant?: string): Scope;
  /**
   * Makes the scopes that must run from the start, so their queued tasks run whichever process
   * queued them: `tenants`, by default each tenant of the tokens or, running open, the store's
   * own. A reload of the tokens calls it with the new set's tenants before they are in use.
   */
  start(tenants?: Iterable<string>): void;
  /**
   * The drain (SIGTERM), at once: `/readyz` says not ready (a load balancer sends no new requests
   * here), `draining` aborts (the open streams end with a retry hint, new ones are refused), each
   * runner's submissions are refused ({@link Draining}) and its running tasks handed back, which
   * another process's runners take at once. Resolves once they are handed back.
   */
  drain(): Promise<void>;
  /** Aborts when the drain starts. */
  readonly draining: AbortSignal;
  /** Whether this process should get requests: the store answers, its runners run, it is not draining. */
  readiness(): Promise<Readiness>;
  /** Stops the runners (their running tasks handed back) and the indexes, then closes the store. */
  close(): Promise<void>;
}

/** What `/readyz` answers, dependency by dependency. */
export interface Readiness {
  readonly ready: boolean;
  readonly checks: {
    readonly store: { readonly ok: boolean; readonly kind: string; readonly cause?: string };
    readonly runner: { readonly ok: boolean; readonly scopes: number };
    readonly draining: { readonly ok: boolean };
  };
}

/**
 * The task kinds the service runs: `demo`, the pipeline kinds over `store`'s documents (reading
 * `source`, the `PIPELINE_SOURCE_DIR`), and `answer` and `retrieve` over `retriever`.
 */
export function taskDefinitions(deps: {
  readonly store: Store;
  readonly retriever: Retriever;
  readonly source?: PipelineSource;
  readonly llm?: LlmConfig;
  readonly fetch?: typeof fetch;
}): TaskDefinition[] {
  return [
    demoTask,
    ...pipelineTasks(deps.store.documents, { source: deps.source }),
    ...answerTasks({ retriever: deps.retriever, llm: deps.llm, fetch: deps.fetch }),
  ];
}

/** Builds the service from `config` and the entry's `parts`. */
export function createService(config: ServerConfig, parts: ServiceParts): Service {
  const { tokens, source } = parts;
  const metrics = config.metricsPort === undefined ? undefined : createMetrics({
    tenantCap: config.metricsTenantCap,
    // Each scope's queue, read when scraped (scopes are made below; the first scrape comes later).
    backlog: () =>
      Promise.all([...scopes].map(async ([tenant, { runner }]) => ({ tenant, lanes: await runner.backlog() }))),
  });
  const store = observed(parts.store, metrics);
  const log = parts.log ?? ((line: string) => console.error(line));
  const outage = storeOutage(log, parts.now);
  store.tasks.retain(config.tasks.retentionMs);
  const webhooks = config.webhooks.enabled && parts.deliversWebhooks !== false;
  // A shared channel no stream of this service reads is not written at all (tenant views follow the store).
  store.tasks.shareEvents({ ...sharedChannels(config.streams), hooks: webhooks });

  const kindsOver = (view: Store, retriever: Retriever) => [
    ...taskDefinitions({ store: view, retriever, source, llm: config.llm, fetch: parts.fetch }),
    ...(parts.kinds ?? []),
  ];
  const scopes = new Map<string | undefined, Scope>();
  let closed = false;
  const draining = new AbortController();
  const retryMs = config.drain.retryMs;
  const scope = (tenant?: string): Scope => {
    const known = scopes.get(tenant);
    if (known) return known;
    if (closed) throw new Error("The service is closed");
    const view = tenant === undefined ? store : store.forTenant(tenant);
    const search = createSearchIndex(view, { engine: config.pipelines.engine, worker: parts.searchWorker });
    search.start();
    const own = createTaskRunner({
      store: view,
      definitions: kindsOver(view, parts.retriever ?? search),
      concurrency: config.tasks.concurrency,
      lanes: { pipelines: config.tasks.pipelineConcurrency },
      kindConcurrency: config.tasks.kindConcurrency,
      leaseMs: config.tasks.leaseMs,
      limits: config.tasks.limits,
      outage,
      log,
      observer: metrics?.tasksOf(tenant),
    });
    // While draining, no new work: a scope made now (a tenant's first request) starts closed.
    if (draining.signal.aborted) void own.close();
    const runner: TaskRunner = {
      ...own,
      submit: (request) =>
        draining.signal.aborted ? Promise.reject(new Draining("tasks", retryMs)) : own.submit(request),
    };
    const dispatcher = webhooks
      ? startDispatcher({
        store: view,
        config: config.webhooks.delivery,
        a2aBody: a2aPushBody,
        log,
        outage,
        attempted: metrics?.webhookAttempt,
      })
      : undefined;
    const made = { store: view, runner, search, dispatcher };
    scopes.set(tenant, made);
    return made;
  };
  return {
    config,
    store,
    tokens,
    source,
    webhooks,
    kinds: kindsOver(store, { search: () => Promise.resolve([]) }),
    outage,
    metrics,
    log,
    debug: parts.debug,
    scope,
    start(tenants = tokens?.tenants) {
      for (const tenant of tenants ?? [undefined]) scope(tenant);
    },
    draining: draining.signal,
    async drain() {
      draining.abort();
      await Promise.all([...scopes.values()].map(({ runner }) => runner.close()));
    },
    async readiness() {
      const cause = await store.ping().then(() => undefined, (error: Error) => error.message);
      const checks = {
        store: { ok: cause === undefined, kind: store.kind, ...(cause !== undefined && { cause }) },
        runner: { ok: !closed, scopes: scopes.size },
        draining: { ok: !draining.signal.aborted },
      };
      return { ready: Object.values(checks).every((check) => check.ok), checks };
    },
    async close() {
      closed = true;
      const all = [...scopes.values()];
      scopes.clear();
      for (const { search } of all) search.close();
      await Promise.all(all.map(({ runner, dispatcher }) => Promise.all([runner.close(), dispatcher?.close()])));
      await store.close();
    },
  };
}

/** `store` with its calls timed (metrics) and made spans (tracing), when either is on. */
function observed(store: Store, metrics?: Metrics): Store {
  const observers = [metrics?.storeCalls, isTracing() ? storeSpans(store.kind) : undefined]
    .filter((observer) => observer !== undefined);
  if (observers.length === 0) return store;
  if (observers.length === 1) return observeStore(store, observers[0]);
  return observeStore(store, (family, startedAt, answer) => {
    for (const observe of observers) observe(family, startedAt, answer);
  });
}
