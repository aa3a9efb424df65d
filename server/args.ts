/**
 * The service's command line. Its settings are environment variables (`server/config.ts`), so
 * the command line takes only `--help`; anything else is a mistake worth saying out loud, not
 * a server started with an option it ignored.
 *
 * @module
 */
import { wrapHelp } from "../lib/text/mod.ts";

/** What the command line asks for: to start, to print `help` (exit 0), or a `mistake` (exit 2). */
export type ServerArgs = { readonly start: true } | { readonly help: string } | { readonly mistake: string };

const HELP = `USAGE
  npm start
  npm start -- --help
  PORT=8080 STORE_URL=redis://127.0.0.1:6379 npm start
  deno task server

The storectl service: agent tasks with sub-tasks and event streams, document pipelines with search and answers, a rate-limited route, and a console at /console. It listens on HOST:PORT (127.0.0.1:8080) and keeps its data in STORE_URL (memory: by default).

SETTINGS (environment variables, checked at start: a bad one stops the server naming it, exit 2)
  PORT                 the port (8080; 0 picks a free one)
  HOST                 the address (127.0.0.1); another needs SERVICE_TOKENS_FILE or ALLOW_ANONYMOUS=true
  STORE_URL            memory:, redis://host:port, redis-cluster://host:port,… (and rediss)
  SERVICE_TOKENS_FILE  bearer tokens (digests), read again on SIGHUP; unset: open, for local use
  CORS_ORIGINS         origins browsers may call from
  TASK_RETENTION_SECONDS  how long finished tasks are kept (86400)
  PIPELINE_SOURCE_DIR  the folder the pipelines read
  Every variable, with its default: docs/configuration.md. A relative path is read from the directory the command was run in.

SIGNALS
  SIGTERM, SIGINT  stop: requests in flight may finish (SHUTDOWN_TIMEOUT_MS), running tasks are handed back
  SIGHUP           read SERVICE_TOKENS_FILE again

FLAGS
  -h  --help  show this help
`;

/**
 * Reads the service's arguments; `columns` is the terminal's width (help is wrapped to it).
 *
 * @example
 * ```ts
 * parseServerArgs([], 80); // { start: true }
 * parseServerArgs(["--port", "1"], 80); // { mistake: "Unknown option '--port': …" }
 * ```
 */
export function parseServerArgs(args: readonly string[], columns?: number): ServerArgs {
  if (args.length === 0) return { start: true };
  if (args.some((arg) => arg === "--help" || arg === "-h")) return { help: wrapHelp(HELP, columns) };
  const first = args[0];
  const what = first.startsWith("-") ? "option" : "argument";
  return {
    mistake: `Unknown ${what} '${first}': the server takes its settings from environment variables ` +
      `(PORT=8080 npm start); run with --help to see them`,
  };
}
