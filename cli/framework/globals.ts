import { resolvePath } from "../../lib/runtime/mod.ts";
import type { CliContext } from "../context.ts";
import { type Flag, flag, type FlagValues } from "./params.ts";

/** Bounds of `--timeout`: past 2,147,483 s timers overflow, and a day is already generous. */
const TIMEOUT_BOUNDS = { min: 0.1, max: 86_400 };
/** Bounds of `--retries`: with backoff capped at 8 s, ten retries already span a minute or more. */
const RETRY_BOUNDS = { min: 0, max: 10 };

/** The flags every command accepts, spread into each by the adapter. */
export const GLOBAL_FLAGS = {
  profile: {
    ...flag.string("profile to use (env: STORE_PROFILE)", { alias: "p", placeholder: "name" }),
    propose: profileNames,
  },
  configFile: flag.string("config file (env: STORE_CONFIG_FILE)", { placeholder: "path" }),
  output: {
    ...flag.string("json, yaml, table or auto: a table on a terminal where the command has one, else JSON", {
      alias: "o",
      placeholder: "format",
    }),
    values: ["json", "yaml", "table", "auto"],
  },
  query: {
    ...flag.string("filter the output with a JMESPath expression", { alias: "q", placeholder: "jmespath" }),
    parse: async (expression: string) => {
      await (await import("../../lib/output/mod.ts")).checkQuery(expression);
      return expression;
    },
  } as Flag<string | undefined>,
  errorFormat: flag.choice(
    "errors on stderr as text or json (default: json when the output is JSON)",
    ["text", "json"],
  ),
  dryRun: flag.boolean("print the request that would change something (as curl, secrets redacted) and send none"),
  raw: flag.boolean("print strings unquoted and lists of values one per line"),
  wide: flag.boolean("tables: show every column whole, even wider than the terminal"),
  verbose: flag.count("log to stderr: -v info, -vv debug (env: STORE_LOG, RUST_LOG)", { alias: "v" }),
  trace: flag.boolean("send a W3C traceparent, a new trace's, with each request (env: TRACEPARENT); -v prints its id"),
  insecure: flag.boolean("accept any TLS certificate (enterprise; env: STORE_ENTERPRISE_INSECURE)"),
  caCert: flag.string("trust this PEM certificate (enterprise; env: STORE_ENTERPRISE_CA_CERT)", {
    placeholder: "file",
  }),
  timeout: flag.number("connect and idle timeout in seconds", {
    ...TIMEOUT_BOUNDS,
    default: 30,
    placeholder: "seconds",
  }),
  retries: flag.number("retries of requests that are safe to repeat", {
    ...RETRY_BOUNDS,
    integer: true,
    default: 3,
    placeholder: "n",
  }),
};

/** The profile names of the config file, for completion; the TOML parser loads only then. */
async function profileNames(ctx: CliContext): Promise<string[]> {
  const { configPath, parseConfig } = await import("../../lib/config/mod.ts");
  const path = resolvePath(ctx.cwd, configPath(ctx.env, ctx.home));
  const text = await ctx.fs.readTextFileIfExists(path);
  const doc = text === undefined ? {} : await parseConfig(text, path);
  return Object.keys(doc.profiles ?? {});
}

/** The global options, as parsed once for the whole run. */
export type GlobalOptions = FlagValues<typeof GLOBAL_FLAGS>;

const SPELLINGS: ReadonlyMap<string, Flag<unknown>> = new Map(
  Object.entries(GLOBAL_FLAGS as Record<string, Flag<unknown>>).flatMap(([name, spec]) => {
    const long = `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    return [[long, spec], ...(spec.alias ? [[`-${spec.alias}`, spec]] : [])] as [string, Flag<unknown>][];
  }),
);

/** The global flag spelled `token` (`-p`, `--profile`), if it is one. */
export function globalFlag(token: string): Flag<unknown> | undefined {
  return SPELLINGS.get(token);
}

/**
 * How many words a global flag spans at the start of a command line (`-p prod` is 2, `--raw`,
 * `-vv` and `-o=json` are 1), or 0 when `token` is not a global flag.
 */
export function globalFlagSpan(token: string): number {
  if (/^-v+$/.test(token)) return 1;
  const [name, value] = token.split(/=(.*)/s, 2);
  const kind = SPELLINGS.get(name)?.kind;
  if (!kind) return 0;
  return kind === "parsed" && value === undefined ? 2 : 1;
}
