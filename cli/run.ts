import { type ErrorCode, StoreCtlError } from "../lib/errors/mod.ts";
import { BrokenPipe, type StdStream } from "../lib/runtime/mod.ts";
import { ROOT } from "./commands/mod.ts";
import { type CliContext, Interrupted } from "./context.ts";
import type { Factory } from "./factory.ts";
import { execute } from "./framework/app.ts";
import { forPeople as wrapping } from "./framework/messages.ts";
import type { GroupSpec } from "./framework/spec.ts";

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
  return outcome.error === undefined ? 0 : await report(outcome.error, outcome.factory, forPeople, ctx.stderr);
}

/** Says what failed on stderr and returns the exit code; its helpers load only when something failed. */
async function report(error: unknown, factory: Factory | undefined, ctx: CliContext, raw: StdStream): Promise<number> {
  if (error instanceof BrokenPipe) return 0; // the reader went away (`| head`): nothing to say
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
  const json = globals?.output === "json" || (globals?.output === "auto" && !ctx.stdout.isTTY);
  if (json) {
    const body = {
      code: failure.code,
      message,
      ...(failure.status !== undefined && { status: failure.status }),
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
