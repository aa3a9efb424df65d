import { CommanderError } from "@commander-js/extra-typings";
import { type ErrorCode, StoreCtlError } from "../lib/errors/mod.ts";
import type { CliContext } from "./context.ts";
import { HINTS } from "./hints.ts";
import { buildProgram } from "./program.ts";

/** Exit codes of ARCHITECTURE §5. */
export const EXIT_CODES: Readonly<Record<ErrorCode, number>> = {
  usage: 2,
  config: 3,
  auth: 4,
  not_found: 5,
  validation: 6,
  conflict: 7,
  api: 8,
  rate_limited: 9,
  network: 10,
  tls: 10,
  timeout: 11,
  cancelled: 12,
  filesystem: 13,
  internal: 1,
};

/**
 * Runs `ctl` with `argv` (the arguments after the program name) and returns the exit code.
 * The only place that turns errors into stderr text and exit codes.
 */
export async function run(argv: readonly string[], ctx: CliContext): Promise<number> {
  try {
    await buildProgram(ctx).parseAsync([...argv], { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError && error.exitCode === 0) return 0; // --help, --version
    const failure = toStoreCtlError(error);
    const tips = [...failure.tips, ...(HINTS[failure.code] ?? [])];
    if (wantsJson(argv)) {
      const body = {
        code: failure.code,
        message: failure.message,
        ...(failure.status !== undefined && { status: failure.status }),
        ...(tips.length > 0 && { tips }),
      };
      ctx.stderr.write(`${JSON.stringify({ error: body })}\n`);
    } else {
      ctx.stderr.write(`Error: ${failure.message}\n${tips.map((tip) => `  tip: ${tip}\n`).join("")}`);
    }
    if (!(error instanceof StoreCtlError || error instanceof CommanderError) && wantsDebug(argv, ctx)) {
      ctx.stderr.write(`${(error as Error).stack}\n`);
    }
    return failure.code === "api" && !(error instanceof StoreCtlError) ? 1 : EXIT_CODES[failure.code];
  }
}

function toStoreCtlError(error: unknown): StoreCtlError {
  if (error instanceof StoreCtlError) return error;
  if (error instanceof CommanderError) {
    const text = error.message.replace(/^error: /, "");
    const suggestion = /\(Did you mean (.+)\?\)/.exec(text)?.[1];
    const tips = [...(suggestion ? [`Did you mean '${suggestion}'?`] : []), "Run with --help to see the usage"];
    const unknown = /^unknown (command|option) '([^']+)'/.exec(text);
    if (unknown) return new StoreCtlError("usage", `Unknown ${unknown[1]} '${unknown[2]}'`, { tips });
    const missing = /^missing required argument '([^']+)'/.exec(text);
    if (missing) return new StoreCtlError("usage", `Missing required argument '${missing[1]}'`, { tips });
    return new StoreCtlError("usage", text.charAt(0).toUpperCase() + text.slice(1).split("\n")[0], { tips });
  }
  // Anything else is a bug: exit 1 with the message (and the stack at -vv).
  return new StoreCtlError("api", `Unexpected error: ${(error as Error)?.message ?? String(error)}`);
}

function wantsJson(argv: readonly string[]): boolean {
  return argv.some((arg, i) =>
    ((arg === "-o" || arg === "--output") && argv[i + 1] === "json") || arg === "--output=json" || arg === "-ojson"
  );
}

function wantsDebug(argv: readonly string[], ctx: CliContext): boolean {
  return argv.some((a) => /^-vv+$/.test(a)) || /debug|trace/.test(ctx.env.STORE_LOG ?? ctx.env.RUST_LOG ?? "");
}
