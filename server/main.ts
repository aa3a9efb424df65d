/**
 * Starts the service on Deno, or on Node from the bundle: `deno task server`. Settings come
 * from the environment (see `server/config.ts` and `docs/configuration.md`); bad values stop it with a
 * message and exit code 2, a store or an address it cannot use with one line and exit code 1.
 *
 * @module
 */
import { loadRuntime, resolvePath, type Runtime, type ServeLog } from "../lib/runtime/mod.ts";
import { openStore } from "../lib/store/mod.ts";
import { createPipelineSource, remoteEngine, SEARCH_WORKER } from "../lib/pipelines/mod.ts";
import { listenFailure } from "../lib/serve/mod.ts";
import { sleep } from "../lib/time/mod.ts";
import { loadServerConfig, type ServerConfig } from "./config.ts";
import { createApp } from "./mod.ts";
import { createService } from "./service.ts";
import { formatLog, type Log } from "./log.ts";
import { metricsFetch } from "./metrics.ts";
import { startTracing } from "./tracing.ts";
import { loadTokensFile } from "./auth/tokens_file.ts";
import { parseServerArgs } from "./args.ts";

const runtime: Runtime = await loadRuntime();
const args = parseServerArgs(runtime.args, runtime.stdout.columns());
if ("help" in args) {
  runtime.stdout.write(args.help);
  await runtime.stdout.flush();
  runtime.exit(0);
}
if ("mistake" in args) {
  console.error(args.mistake);
  runtime.exit(2);
}
let config: ServerConfig;
try {
  config = loadServerConfig(runtime.env());
} catch (error) {
  console.error((error as Error).message);
  runtime.exit(2);
}
// A relative path is read from where the command was run (npm and deno task run it from the checkout).
const here = runtime.env().INIT_CWD ?? runtime.cwd();
const fromHere = (path: string | undefined) => path === undefined ? undefined : resolvePath(here, path);
// As LOG_FORMAT says: text (this program's own lines after its name, the service's as they are), or JSON lines.
const say: Log = formatLog(config.logFormat, (line) => console.error(line), "storectl server: ");
const serviceLog: Log = formatLog(config.logFormat, (line) => console.error(line));

const tokensPath = fromHere(config.auth.tokensFile);
const tokensFile = tokensPath === undefined ? undefined : await loadTokensFile(tokensPath, {
  read: (path) => runtime.fs.readTextFile(path),
  log: say,
  // Reloads come only once the service runs (below): new tenants' scopes start before their tokens work.
  beforeUse: (set) => service.start(set.tenants),
}).catch((error: Error) => {
  console.error(error.message);
  return runtime.exit(2);
});

const caFile = fromHere(config.storeTlsCaFile);
const tlsCa = caFile === undefined ? undefined : await runtime.fs.readTextFile(caFile).catch((error: Error) => {
  console.error(
    `STORE_TLS_CA_FILE '${caFile}' cannot be read (${error.message}); point it at the PEM file of the CA that signed the Redis nodes' certificates`,
  );
  return runtime.exit(2);
});
const sourceDir = fromHere(config.pipelines.sourceDir);
if (sourceDir && (await runtime.fs.info(sourceDir).catch(() => undefined))?.kind !== "directory") {
  console.error(`PIPELINE_SOURCE_DIR '${sourceDir}' is not a readable folder; create it or point the variable at one`);
  runtime.exit(2);
}
// Before the service, whose store calls and runs are spans once the SDK is in.
const tracing = config.tracing && await startTracing(config.tracing);
const store = await openStore({ ...config.store, tlsCa }).catch((error: Error) => {
  console.error(`storectl server cannot start: ${error.message}`);
  return runtime.exit(1);
});
const env = runtime.env();
const debug = /debug|trace/.test(env.STORE_LOG ?? env.RUST_LOG ?? "") ? say : undefined; // as ctl and the emulator read it

const service = createService(config, {
  store,
  log: serviceLog,
  tokens: tokensFile?.tokens,
  source: sourceDir
    ? createPipelineSource(runtime.fs, sourceDir, { maxFileBytes: config.pipelines.maxFileBytes })
    : undefined,
  // Each index's engine in a thread of its own where the runtime has threads: indexing and searches
  // run beside the requests, and no tenant's search waits for another's.
  searchWorker: runtime.startWorker && ((engine) => remoteEngine(runtime.startWorker!(SEARCH_WORKER), engine)),
  debug,
});
// Every tenant of the tokens file (or, running open, the store) runs its queued tasks here from the start.
service.start();
const app = createApp(service);
const log: ServeLog = (level, line) => level === "debug" ? debug?.(line) : say(line);
const { hostname, port } = config;
// Requests in flight get what is left of SHUTDOWN_TIMEOUT_MS once the grace is over, less a moment to close the rest.
const inFlightMs = config.limits.shutdownTimeoutMs - config.drain.graceMs;
const limits = { ...config.limits, shutdownTimeoutMs: inFlightMs - Math.min(100, Math.floor(inFlightMs / 10)) };
// The app takes small bodies from `prereadBody` (server/json_body.ts): no guarded copy of each request.
const listener = await runtime.serve({ hostname, port, fetch: app.fetch, limits, log, prereadSmallBodies: true }).catch(
  (error) => {
    console.error(
      listenFailure(error, { program: "storectl server", hostname, port, portFix: "set PORT", hostFix: "set HOST" }),
    );
    return runtime.exit(1);
  },
);
// Prometheus scrapes a listener of its own, on the service's address: never behind the service's tokens.
const metricsListener = service.metrics && config.metricsPort !== undefined
  ? await runtime.serve({ hostname, port: config.metricsPort, fetch: metricsFetch(service.metrics), log }).catch(
    (error) => {
      console.error(listenFailure(error, {
        program: "storectl server metrics",
        hostname,
        port: config.metricsPort!,
        portFix: "set METRICS_PORT",
        hostFix: "set HOST",
      }));
      return runtime.exit(1);
    },
  )
  : undefined;
// The access mode sits before the parenthesis, which tests and scripts read to its end.
const tokens = tokensFile?.tokens;
const access = tokens
  ? `[${tokens.size} token${tokens.size === 1 ? "" : "s"}]`
  : "[open: no SERVICE_TOKENS_FILE, every route answers anyone who can reach it]";
const engine = service.scope(tokens?.tenants[0]).search.engine;
const metricsAt = metricsListener ? `; metrics: ${new URL("/metrics", metricsListener.url)}` : "";
const tracesAt = tracing ? "; traces: OTLP/HTTP" : "";
console.log(
  `storectl server listening on ${listener.url} ${access} (store: ${store.kind}; search index: ${engine}${metricsAt}${tracesAt})`,
);
// SIGHUP reads the tokens file again (a changed file is noticed within 2 s anyway); it never stops the service.
tokensFile?.watch(2_000);
runtime.onHangup(() => {
  if (tokensFile) void tokensFile.reload("SIGHUP");
  else say("SIGHUP: nothing to reload (no SERVICE_TOKENS_FILE); SIGTERM stops the server");
});
// The drain (docs/operations.md, "Shutdown"), all within SHUTDOWN_TIMEOUT_MS: at once /readyz fails, new work and
// streams are refused (503), open streams end with a retry hint and running tasks are handed back; after
// DRAIN_GRACE_MS the port closes and requests in flight may finish; then the rest closes.
runtime.onTerminate(async () => {
  const { shutdownTimeoutMs } = config.limits;
  const deadline = setTimeout(() => {
    say(`shutdown took longer than SHUTDOWN_TIMEOUT_MS (${shutdownTimeoutMs} ms); exiting without finishing it`);
    runtime.exit(1);
  }, shutdownTimeoutMs);
  const handedBack = service.drain();
  tokensFile?.close();
  await sleep(config.drain.graceMs);
  await listener.close();
  await metricsListener?.close();
  await handedBack;
  await service.close();
  await tracing?.shutdown(); // the last spans are sent
  clearTimeout(deadline);
  runtime.exit(0);
}, ["SIGINT", "SIGTERM"]);
