/**
 * Starts the service on Deno, or on Node from the bundle: `deno task server`. Settings come
 * from the environment (see `server/config.ts` and the README); bad values stop it with a
 * message and exit code 2, a store or an address it cannot use with one line and exit code 1.
 *
 * @module
 */
import { loadRuntime, type Runtime, type ServeLog } from "../lib/runtime/mod.ts";
import { openStore, type Store, storeOutage } from "../lib/store/mod.ts";
import { createTaskRunner } from "../lib/tasks/mod.ts";
import { createPipelineSource, createSearchIndex, remoteEngine, SEARCH_WORKER } from "../lib/pipelines/mod.ts";
import { loadServerConfig, type ServerConfig } from "./config.ts";
import { listenFailure } from "../lib/serve/mod.ts";
import { createApp, taskDefinitions } from "./mod.ts";
import { loadTokensFile } from "./auth/tokens_file.ts";

const runtime: Runtime = await loadRuntime();
let config: ServerConfig;
try {
  config = loadServerConfig(runtime.env());
} catch (error) {
  console.error((error as Error).message);
  runtime.exit(2);
}

const tokensPath = config.auth.tokensFile;
const tokensFile = tokensPath === undefined ? undefined : await loadTokensFile(tokensPath, {
  read: (path) => runtime.fs.readTextFile(path),
  log: (line) => console.error(`storectl server: ${line}`),
  // Reloads come only once the service runs (below): the tenants' map is there by then.
  beforeUse: (set) => {
    for (const tenant of set.tenants) {
      if (!tenants.has(tenant)) tenants.set(tenant, workersOver(store.forTenant(tenant)));
    }
  },
}).catch((error: Error) => {
  console.error(error.message);
  return runtime.exit(2);
});
const tokens = tokensFile?.tokens;

const caFile = config.storeTlsCaFile;
const tlsCa = caFile === undefined ? undefined : await runtime.fs.readTextFile(caFile).catch((error: Error) => {
  console.error(
    `STORE_TLS_CA_FILE '${caFile}' cannot be read (${error.message}); point it at the PEM file of the CA that signed the Redis nodes' certificates`,
  );
  return runtime.exit(2);
});
const store = await openStore({ ...config.store, tlsCa }).catch((error: Error) => {
  console.error(`storectl server cannot start: ${error.message}`);
  return runtime.exit(1);
});
const env = runtime.env();
const debug = /debug|trace/.test(env.STORE_LOG ?? env.RUST_LOG ?? ""); // as ctl and the emulator read it
const debugLine = debug ? (line: string) => console.error(`storectl server: ${line}`) : undefined;
store.tasks.retain(config.tasks.retentionMs);
const outage = storeOutage((line) => console.error(line)); // one for the routes, /health and the runners
const sourceDir = config.pipelines.sourceDir;
if (sourceDir && (await runtime.fs.info(sourceDir).catch(() => undefined))?.kind !== "directory") {
  console.error(`PIPELINE_SOURCE_DIR '${sourceDir}' is not a readable folder; create it or point the variable at one`);
  runtime.exit(2);
}
const source = sourceDir
  ? createPipelineSource(runtime.fs, sourceDir, { maxFileBytes: config.pipelines.maxFileBytes })
  : undefined;
// A store's (or a tenant view's) derived index, caught up now and followed after, and its task
// runner. The index is built in a worker thread of its own where the runtime has one (Deno, Node),
// so indexing and searches run beside the requests, and no tenant's search waits for another's.
const workersOver = (over: Store) => {
  const search = createSearchIndex(over, {
    engine: config.pipelines.engine,
    worker: runtime.startWorker && ((engine) => remoteEngine(runtime.startWorker!(SEARCH_WORKER), engine)),
  });
  search.start();
  const tasks = createTaskRunner({
    store: over,
    definitions: taskDefinitions({ store: over, retriever: search, source, llm: config.llm, fetch }),
    concurrency: config.tasks.concurrency,
    lanes: { pipelines: config.tasks.pipelineConcurrency },
    kindConcurrency: config.tasks.kindConcurrency,
    leaseMs: config.tasks.leaseMs,
    limits: config.tasks.limits,
    outage,
  });
  return { search, tasks };
};
const { search, tasks } = workersOver(store);
// Every tenant of the tokens file runs its queued tasks here from the start, whichever process queued them.
const tenants = new Map((tokens?.tenants ?? []).map((tenant) => [tenant, workersOver(store.forTenant(tenant))]));
const app = createApp({
  store,
  rateLimit: config.rateLimit,
  bodyLimitBytes: config.bodyLimitBytes,
  debug: debugLine,
  outage,
  tasks,
  taskApi: config.tasks,
  streams: config.streams,
  pipelines: { source, search },
  auth: { tokens, corsOrigins: config.auth.corsOrigins, allowedHosts: config.auth.allowedHosts },
  tenants,
});
const log: ServeLog = (level, line) =>
  level === "debug" ? debugLine?.(line) : console.error(`storectl server: ${line}`);
const { hostname, port, limits } = config;
const listener = await runtime.serve({ hostname, port, fetch: app.fetch, limits, log }).catch(
  (error) => {
    console.error(
      listenFailure(error, { program: "storectl server", hostname, port, portFix: "set PORT", hostFix: "set HOST" }),
    );
    return runtime.exit(1);
  },
);
// The access mode sits before the parenthesis, which tests and scripts read to its end.
const access = tokens
  ? `[${tokens.size} token${tokens.size === 1 ? "" : "s"}]`
  : "[open: no SERVICE_TOKENS_FILE, every route answers anyone who can reach it]";
console.log(
  `storectl server listening on ${listener.url} ${access} (store: ${store.kind}; search index: ${search.engine})`,
);
// SIGHUP reads the tokens file again (a changed file is noticed within 2 s anyway); it never stops the service.
tokensFile?.watch(2_000);
runtime.onHangup(() => {
  if (tokensFile) void tokensFile.reload("SIGHUP");
  else console.error("storectl server: SIGHUP: nothing to reload (no SERVICE_TOKENS_FILE); SIGTERM stops the server");
});
// Stops accepting, lets requests in flight finish for up to SHUTDOWN_TIMEOUT_MS, then closes the rest.
runtime.onTerminate(async () => {
  tokensFile?.close();
  await listener.close();
  for (const workers of [{ search, tasks }, ...tenants.values()]) {
    workers.search.close();
    await workers.tasks.close();
  }
  await store.close();
  runtime.exit(0);
}, ["SIGINT", "SIGTERM"]);
