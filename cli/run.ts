import { type ErrorCode, retryable, StoreCtlError } from "../lib/errors/mod.ts";
import { BrokenPipe, type StdStream } from "../lib/runtime/mod.ts";
import { ROOT } from "./commands/mod.ts";
import { type CliContext, DryRunStop, Interrupted } from "./context.ts";
import type { Factory } from "./factory.ts";
import { execute } from "./framework/app.ts";
import { forPeople as wrapping } from "./framework/messages.ts";
import type { GroupSpec } from "./framework/spec.ts";
import type { GlobalOptions } from "./framework/globals.ts";

/** The exit code of each error code (docs/architecture.md, "Exit codes"). */
export const EXIT_CODES: Readonly<Record<ErrorCode, number>> = {
  internal: 1,
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
  damaged: 14,
};

/**
 * Runs `ctl` with `argv` (the arguments after the program name) and returns the exit code.
 * The only place that turns errors into stderr text and exit codes (the GitHub CLI's
 * `main.go` pattern).
 */
export async function run(argv: readonly string[], ctx: CliContext, root: GroupSpec = ROOT): Promise<number> {
  const forPeople = { ...ctx, stderr: wrapping(ctx.stderr) };
  let outcome;
  try {
    outcome = await execute(root, argv, forPeople);
  } catch (error) {
    outcome = { error };
  }
  return outcome.error === undefined ? 0 : await report(outcome.error, outcome.factory, forPeople, ctx.stderr, argv);
}

/** Says what failed on stderr and returns the exit code; its helpers load only when something failed. */
async function report(
  error: unknown,
  factory: Factory | undefined,
  ctx: CliContext,
  raw: StdStream,
  argv: readonly string[],
): Promise<number> {
  if (error instanceof BrokenPipe) return 0; // the reader went away (`| head`): nothing to say
  if (error instanceof DryRunStop) return 0; // the request it would send is printed
  if (error instanceof Interrupted) {
    ctx.stderr.write(`Interrupted (${error.signal.name})${error.note ? `: ${error.note}` : ""}\n`);

    return 128 + error.signal.number;
  }
  const failure = error instanceof StoreCtlError ? error : new StoreCtlError(
    "internal",
    `Unexpected error: ${(error as Error)?.message ?? String(error)}`,
    { cause: error, tips: ["This is a bug in ctl: please report it with the output of -vv"] },
  );
  const [{ maskUrl }, { hintsFor }] = await Promise.all([import("../lib/config/mod.ts"), import("./hints.ts")]);
  const tips = [...failure.tips, ...hintsFor(failure, factory)].map(maskUrl);
  const message = maskUrl(failure.message);
  const globals = factory?.globals;
  if (errorsAsJson(globals, argv, ctx.stdout.isTTY)) {
    const body = {
      code: failure.code,
      message,
      ...(failure.status !== undefined && { status: failure.status }),
      retryable: retryable(failure.code, failure.status),
      ...(tips.length > 0 && { tips }),
    };
    raw.write(`${JSON.stringify({ error: body })}\n`);
  } else {
    // A "no" at a prompt is the user's choice, not an error.
    const said = failure.code === "cancelled" ? message : `Error: ${message}`;
    ctx.stderr.write(`${said}\n${tips.map((tip) => `  tip: ${tip}\n`).join("")}`);
  }
  if (failure.code === "internal" && (globals?.verbose ?? 0) >= 2) ctx.stderr.write(`${(error as Error).stack}\n`);
  return EXIT_CODES[failure.code];
}

/**
 * Whether an error is said as JSON: `--error-format` decides; without it, JSON when the output is
 * (`-o json`, or `-o auto` piped). A mistake on the command line fails before the flags are read:
 * the words then say it.
 */
function errorsAsJson(globals: GlobalOptions | undefined, argv: readonly string[], terminal: boolean): boolean {
  const asked = globals?.errorFormat ?? wordAfter(argv, "--error-format");
  if (asked !== undefined) return asked === "json";
  const output = globals?.output ?? wordAfter(argv, "--output") ?? wordAfter(argv, "-o");
  return output === "json" || (output === "auto" && !terminal);
}

/** The value `argv` gives `flag` (`--flag value` or `--flag=value`), if it does. */
function wordAfter(argv: readonly string[], flag: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === flag) return argv[i + 1];
    if (argv[i].startsWith(`${flag}=`)) return argv[i].slice(flag.length + 1);
  }
  return undefined;
}
