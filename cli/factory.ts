import type { CloudClient } from "../lib/cloud/mod.ts";
import {
  type CloudCredentials,
  CONFIG_VERSION,
  type ConfigDocument,
  configPath,
  configVersion,
  type Credentials,
  type Deployment,
  type EnterpriseCredentials,
  migrateConfig,
  parseConfig,
  resolveCredentials,
  selectProfile,
  serializeConfig,
  validateProfiles,
} from "../lib/config/mod.ts";
import type { EnterpriseClient } from "../lib/enterprise/mod.ts";
import { mask, StoreCtlError } from "../lib/errors/mod.ts";
import { type ClientSettings, DEFAULT_RETRY_POLICY, type RetryEvent, retryLine } from "../lib/http/mod.ts";
import { createLogger, type Logger } from "../lib/output/mod.ts";
import { resolvePath } from "../lib/runtime/mod.ts";
import type { CliContext } from "./context.ts";
import { dryRunTransport } from "./dry_run.ts";
import { requestTrace } from "./trace.ts";
import type { GlobalOptions } from "./framework/globals.ts";

/** The config file's path and content. */
export interface LoadedConfig {
  readonly path: string;
  readonly doc: ConfigDocument;
}

/**
 * What commands are built from (the GitHub CLI's Factory): the effects, the global options parsed
 * once, and lazily built config and API clients. The profile is selected once per deployment.
 */
export interface Factory {
  readonly ctx: CliContext;
  readonly globals: GlobalOptions;
  readonly logger: Logger;
  /** Whether stdout gets colour: a terminal, and `NO_COLOR` unset. */
  readonly color: boolean;
  /** A path from the command line, made absolute against the caller's directory. */
  resolvePath(path: string): string;
  /** The config file (an empty document when it does not exist); `repair` skips profile checks. */
  config(options?: { repair?: boolean }): Promise<LoadedConfig>;
  /** Changes the config under a lock file and writes it atomically with mode 0600; returns its path. */
  updateConfig(change: (doc: ConfigDocument) => ConfigDocument): Promise<string>;
  credentials(deployment: Deployment): Promise<Credentials>;
  cloud(): Promise<CloudClient>;
  enterprise(): Promise<EnterpriseClient>;
  /**
   * The HTTP settings the API clients are built with (transport with the environment's proxies,
   * `--timeout`, `--retries` and their notices, logging), for a client of another service (the
   * file-transfer service of `--upload`); no cluster CA or `--insecure`, which belong to the cluster.
   */
  httpSettings(): Promise<ClientSettings>;
  /** The credentials resolved so far, for tips after a failure. */
  readonly used: Partial<Record<Deployment, Credentials>>;
  /** Writes a warning line on stderr. */
  warn(message: string): void;
  /** The `traceparent` every request of this run sends (`TRACEPARENT`, `--trace`), or none. */
  traceparent(): string | undefined;
}

/** Builds the factory for one run. */
export function createFactory(ctx: CliContext, globals: GlobalOptions): Factory {
  const logger = createLogger({
    verbosity: globals.verbose,
    filter: ctx.env.STORE_LOG ?? ctx.env.RUST_LOG,
    write: (line) => ctx.stderr.write(`${line}\n`),
  });
  const once = <T>(make: () => Promise<T>) => {
    let made: Promise<T> | undefined;
    return () => (made ??= make());
  };
  const path = () => resolvePath(ctx.cwd, configPath(ctx.env, ctx.home, globals.configFile));
  const read = async (repair: boolean): Promise<LoadedConfig> => {
    const file = path();
    const text = await ctx.fs.readTextFileIfExists(file);
    const doc = text === undefined ? {} : await parseConfig(text, file);
    configVersion(doc, file); // a newer file is refused before anything reads it
    if (!repair) validateProfiles(doc, file);
    return { path: file, doc };
  };
  const checked = once(() => read(false));
  const credentials: Partial<Record<Deployment, Promise<Credentials>>> = {};

  const factory: Factory = {
    ctx,
    globals,
    logger,
    color: ctx.stdout.isTTY && !ctx.env.NO_COLOR,
    resolvePath: (p) => resolvePath(ctx.cwd, p),
    config: (options = {}) => options.repair ? read(true) : checked(),
    async updateConfig(change) {
      const file = path();
      const release = await ctx.fs.lock(file);
      try {
        const { doc } = await read(true);
        const version = configVersion(doc, file);
        if (version < CONFIG_VERSION && Object.keys(doc).length > 0) {
          // The old file as it was, beside it, before it is rewritten in the new format.
          await ctx.fs.writeFileAtomic(`${file}.v${version}.bak`, await ctx.fs.readTextFile(file), { mode: 0o600 });
        }
        const next = change(migrateConfig(doc, version));
        await ctx.fs.writeFileAtomic(file, await serializeConfig(next), { mode: 0o600 });
      } finally {
        await release();
      }
      return file;
    },
    credentials(deployment) {
      return credentials[deployment] ??= resolve(factory, deployment).then((resolved) => {
        factory.used[deployment] = resolved;
        return resolved;
      });
    },
    cloud: once(async () => {
      const resolved = await factory.credentials("cloud") as CloudCredentials;
      // Each API's modules load with its first client: a command uses one of them.
      const { createCloudClient } = await import("../lib/cloud/mod.ts");
      return createCloudClient(resolved, await clientSettings(factory, {}));
    }),
    enterprise: once(async () => {
      const resolved = await factory.credentials("enterprise") as EnterpriseCredentials;
      const caCert = resolved.caCert === undefined ? undefined : await readCaCert(factory, resolved);
      const { createEnterpriseClient } = await import("../lib/enterprise/mod.ts");
      return createEnterpriseClient(resolved, await clientSettings(factory, { insecure: resolved.insecure, caCert }));
    }),
    httpSettings: once(() => clientSettings(factory, {})),
    used: {},
    warn: (message) => ctx.stderr.write(`Warning: ${message}\n`),
    traceparent: () => (trace ??= { traceparent: requestTrace(ctx.env, globals.trace, factory) }).traceparent,
  };
  let trace: { traceparent?: string } | undefined;
  return factory;
}

/** Resolves credentials, logging where each value came from and warning about flags that lose. */
async function resolve(f: Factory, deployment: Deployment): Promise<Credentials> {
  const { path, doc } = await f.config();
  const { env } = f.ctx;
  const selected = selectProfile({ deployment, doc, env, profile: f.globals.profile });
  f.logger.log(
    "info",
    "config",
    selected
      ? `profile '${selected.name}' (from ${selected.how}) in ${path}`
      : `no ${deployment} profile; using the environment`,
  );
  const caCertFlag = f.globals.caCert === undefined ? undefined : f.resolvePath(f.globals.caCert);
  const creds = await resolveCredentials({
    deployment,
    doc,
    env,
    profile: f.globals.profile,
    flags: { insecure: f.globals.insecure, caCert: caCertFlag },
    keyring: f.ctx.keyring,
  });
  if (creds.deployment === "cloud") {
    const s = creds.sources;
    f.logger.log(
      "debug",
      "config",
      `api_key ${
        mask(creds.apiKey)
      } from ${s.apiKey}; api_secret **** from ${s.apiSecret}; api_url ${creds.apiUrl} from ${s.apiUrl}`,
    );
    return creds;
  }
  const s = creds.sources;
  f.logger.log(
    "debug",
    "config",
    `url ${creds.url} from ${s.url}; user ${creds.username} from ${s.username}; password **** from ${s.password}; ` +
      `insecure ${creds.insecure} from ${s.insecure}; ca_cert ${creds.caCert ?? "none"} from ${s.caCert}`,
  );
  // The specification ranks flags last; a flag that loses must not be ignored silently.
  if (f.globals.insecure && !creds.insecure) {
    f.warn(`--insecure is ignored: ${s.insecure} sets insecure to false, and it takes priority over flags`);
  }
  if (caCertFlag !== undefined && creds.caCert !== caCertFlag) {
    f.warn(`--ca-cert is ignored: ${s.caCert} sets ca_cert to ${creds.caCert}, and it takes priority over flags`);
  }
  return creds;
}

async function clientSettings(f: Factory, tls: { insecure?: boolean; caCert?: string }): Promise<ClientSettings> {
  const transport = await f.ctx.createTransport({ env: f.ctx.env, ...tls });
  return {
    transport: f.globals.dryRun ? dryRunTransport(transport, (line) => f.ctx.stdout.write(line), tls) : transport,
    timeoutMs: f.globals.timeout * 1000,
    retry: { ...DEFAULT_RETRY_POLICY, retries: f.globals.retries },
    logger: f.logger,
    traceparent: f.traceparent(),
    onRetry: (event: RetryEvent) => f.ctx.stderr.write(`${retryLine(event)}\n`),
  };
}

async function readCaCert(f: Factory, creds: EnterpriseCredentials): Promise<string> {
  const file = f.resolvePath(creds.caCert!);
  try {
    return await f.ctx.fs.readTextFile(file);
  } catch (error) {
    throw new StoreCtlError(
      "config",
      `Cannot read the CA certificate ${file} (ca_cert from ${creds.sources.caCert}): ${(error as Error).message}`,
      { reason: "ca_cert_unreadable", details: { source: creds.sources.caCert } },
    );
  }
}
