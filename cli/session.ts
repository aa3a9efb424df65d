import {
  type ConfigDocument,
  configPath,
  type Credentials,
  type Deployment,
  parseConfig,
  resolveCredentials,
  selectProfile,
} from "../lib/config/mod.ts";
import { mask, StoreCtlError } from "../lib/errors/mod.ts";
import { createHttpClient, DEFAULT_RETRY_POLICY, type HttpClient } from "../lib/http/mod.ts";
import { createLogger, type Format, isFormat, type Logger } from "../lib/output/mod.ts";
import type { CliContext } from "./context.ts";

/** Options every command accepts. */
export interface GlobalOptions {
  profile?: string;
  configFile?: string;
  output?: string;
  file?: string;
  query?: string;
  raw?: boolean;
  verbose: number;
  insecure?: boolean;
  caCert?: string;
  timeout: number;
  retries: number;
}

/** `-o` takes a format or, where a command writes a file, a path; `--file` is unambiguous. */
export function outputTarget(options: GlobalOptions): { format: Format; file?: string } {
  const o = options.output;
  if (options.file) return { format: o && isFormat(o) ? o : "auto", file: options.file };
  if (o === undefined || isFormat(o)) return { format: o ?? "auto" };
  return { format: "auto", file: o };
}

/** A logger writing to stderr, from `-v` counts and `STORE_LOG` (alias `RUST_LOG`). */
export function sessionLogger(ctx: CliContext, options: GlobalOptions): Logger {
  return createLogger({
    verbosity: options.verbose,
    filter: ctx.env.STORE_LOG ?? ctx.env.RUST_LOG,
    write: (line) => ctx.stderr.write(`${line}\n`),
  });
}

/** The config file's path and content; an empty document when the file does not exist. */
export async function loadConfig(
  ctx: CliContext,
  options: GlobalOptions,
): Promise<{ path: string; doc: ConfigDocument }> {
  const path = configPath(ctx.env, ctx.home, options.configFile);
  const text = await ctx.readTextFileIfExists(path);
  return { path, doc: text === undefined ? {} : parseConfig(text, path) };
}

/** An authenticated client for one deployment, and the credentials it uses. */
export interface Connection {
  readonly client: HttpClient;
  readonly credentials: Credentials;
  readonly authHeaders: Readonly<Record<string, string>>;
  readonly caCertFile?: string;
  readonly logger: Logger;
}

/** Resolves credentials and builds the client, logging where each value came from. */
export async function connect(ctx: CliContext, options: GlobalOptions, deployment: Deployment): Promise<Connection> {
  const logger = sessionLogger(ctx, options);
  const { path, doc } = await loadConfig(ctx, options);
  const selected = selectProfile({ deployment, doc, env: ctx.env, profile: options.profile });
  logger.log(
    "info",
    "config",
    selected
      ? `profile '${selected.name}' (from ${selected.how}) in ${path}`
      : `no ${deployment} profile; using the environment`,
  );
  const credentials = await resolveCredentials({
    deployment,
    doc,
    env: ctx.env,
    profile: options.profile,
    flags: { insecure: options.insecure, caCert: options.caCert },
    keyring: ctx.keyring,
  });
  const who = credentials.profile ? `profile '${credentials.profile}'` : "environment";
  let authHeaders: Record<string, string>;
  let identity: string;
  let caCert: string | undefined;
  if (credentials.deployment === "cloud") {
    const s = credentials.sources;
    logger.log(
      "debug",
      "config",
      `api_key ${
        mask(credentials.apiKey)
      } from ${s.apiKey}; api_secret **** from ${s.apiSecret}; api_url ${credentials.apiUrl} from ${s.apiUrl}`,
    );
    authHeaders = { "x-api-key": credentials.apiKey, "x-api-secret-key": credentials.apiSecret };
    identity = `${who} (key ${mask(credentials.apiKey)})`;
  } else {
    const s = credentials.sources;
    logger.log(
      "debug",
      "config",
      `url ${credentials.url} from ${s.url}; user ${credentials.username} from ${s.username}; password **** from ${s.password}; insecure ${credentials.insecure} from ${s.insecure}; ca_cert from ${s.caCert}`,
    );
    const bytes = new TextEncoder().encode(`${credentials.username}:${credentials.password}`);
    authHeaders = { authorization: `Basic ${btoa(String.fromCharCode(...bytes))}` };
    identity = `${who} (user ${credentials.username})`;
    if (credentials.caCert) caCert = await readCaCert(ctx, credentials.caCert);
  }
  const transport = await ctx.createTransport({
    env: ctx.env,
    insecure: credentials.deployment === "enterprise" && credentials.insecure,
    caCert,
  });
  const client = createHttpClient({
    baseUrl: credentials.deployment === "cloud" ? credentials.apiUrl : credentials.url,
    authHeaders,
    identity,
    transport,
    timeoutMs: options.timeout * 1000,
    retry: { ...DEFAULT_RETRY_POLICY, retries: options.retries },
    logger,
  });
  return {
    client,
    credentials,
    authHeaders,
    caCertFile: credentials.deployment === "enterprise" ? credentials.caCert : undefined,
    logger,
  };
}

async function readCaCert(ctx: CliContext, file: string): Promise<string> {
  try {
    return await ctx.readTextFile(file);
  } catch (error) {
    throw new StoreCtlError("config", `Cannot read the CA certificate ${file}: ${(error as Error).message}`, {
      tips: ["Give the path of a PEM file with --ca-cert, ca_cert in the profile, or STORE_ENTERPRISE_CA_CERT"],
    });
  }
}
