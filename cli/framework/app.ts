import { StoreCtlError } from "../../lib/errors/mod.ts";
import type { CliContext } from "../context.ts";
import type { Factory } from "../factory.ts";
import { ADDED_FLAGS } from "./extra_flags.ts";
import { globalFlag, globalFlagSpan } from "./globals.ts";
import { wrapHelp } from "../../lib/text/mod.ts";
import { groupHelp } from "./help.ts";
import type { GroupSpec } from "./spec.ts";
import type { Runner } from "./stricli.ts";
import { loadAll, route } from "./tree.ts";

/** How a run ended, for `run.ts` to report. */
export interface Outcome {
  readonly error?: unknown;
  /** The factory of the command that ran, when it got that far (its options and credentials). */
  readonly factory?: Factory;
}

/** The hidden command the completion scripts call: `ctl __complete -- <words…>`. */
export const COMPLETE_COMMAND = "__complete";

/**
 * Runs the command line through the tree: moves global flags written before the command behind
 * it, loads only the modules on the way, lets the parser read flags and arguments, and runs the
 * command with prompts and output handled. A group's help needs no parser. Errors are returned,
 * never printed.
 */
export async function execute(root: GroupSpec, argv: readonly string[], ctx: CliContext): Promise<Outcome> {
  let words = hoistGlobals(argv);
  if (words[0] === COMPLETE_COMMAND) return await complete(root, words.slice(words[1] === "--" ? 2 : 1), ctx);
  if (words[0] === "help") words = [...words.slice(1), "--help"];
  const { path, chain, target } = await route(root, words);
  // JMESPath loads while the parser works. Only now: the command's module has loaded lib/output,
  // and a second import of a graph still loading makes Deno load it twice.
  if (words.some((w) => /^(-q|--query)(=|$)/.test(w))) {
    void import("../../lib/output/mod.ts").then((m) => m.preloadQuery());
  }
  const rest = words.slice(path.length);
  const asksHelp = rest.some((w) => w === "--help" || w === "-h");
  if (target.kind === "group" && isUnknownFlag(rest[0])) return { error: unknownFlag(rest[0], path) };
  if (target.kind === "group" && rest.every((w) => w.startsWith("-"))) {
    // Nothing to run: help shows; a group without a command also says one is missing.
    const help = groupHelp(path, target);
    if (asksHelp || path.length === 0) return (ctx.stdout.write(wrapHelp(help, ctx.stdout.columns())), {});
    ctx.stderr.write(wrapHelp(help, ctx.stderr.columns()));
    return {
      error: new StoreCtlError(
        "usage",
        `'ctl ${path.join(" ")}' needs a command: ${Object.keys(target.commands).join(", ")}`,
        { reason: "missing_command" },
      ),
    };
  }
  const outcome: { error?: unknown; factory?: Factory } = {};
  // The command's machinery loads while the parser loads, is built and reads the flags.
  const invoking = target.kind === "command" ? import("./invoke.ts") : undefined;
  const { buildApp, buildTarget, run } = await import("./stricli.ts");
  const runner: Runner = async (spec, flags, args) => {
    try {
      const { invoke } = await invoking!;
      await invoke(spec, flags, args, ctx, (factory) => (outcome.factory = factory));
    } catch (error) {
      outcome.error = error;
    }
  };
  const placeholders = new Set(target.kind === "command" ? (target.args ?? []).map((a) => a.name) : []);
  const app = buildApp(
    buildTarget(root, path, chain, ADDED_FLAGS, runner),
    (error) => (outcome.error ??= error),
    placeholders,
  );
  await run(app, words, stricliContext(ctx, ctx.stdout));
  return outcome;
}

/** A flag that no group takes: not help, not the version, not a global flag (those move behind the command). */
function isUnknownFlag(word: string | undefined): word is string {
  return word !== undefined && word.startsWith("-") && word !== "--" &&
    !["--help", "-h", "--version"].includes(word) && globalFlagSpan(word) === 0;
}

/** `ctl --bogus`, `ctl cloud --bogus`: the parser would call the flag a command. */
function unknownFlag(word: string, path: readonly string[]): StoreCtlError {
  return new StoreCtlError("usage", `Unknown flag ${word.replace(/=.*/, "")}`, {
    reason: "unknown_flag",
    tips: [`Run ${["ctl", ...path].join(" ")} --help to see the usage`],
  });
}

/** Global flags written before the command move behind it, where the parser reads flags. */
export function hoistGlobals(argv: readonly string[]): string[] {
  const leading: string[] = [];
  let i = 0;
  for (let span = globalFlagSpan(argv[0] ?? ""); span > 0 && i < argv.length; span = globalFlagSpan(argv[i] ?? "")) {
    leading.push(...argv.slice(i, i + span));
    i += span;
  }
  const rest = argv.slice(i);
  const escape = rest.indexOf("--");
  return escape < 0 ? [...rest, ...leading] : [...rest.slice(0, escape), ...leading, ...rest.slice(escape)];
}

/** Prints the completions of the last word, one per line. */
async function complete(root: GroupSpec, words: readonly string[], ctx: CliContext): Promise<Outcome> {
  let input = words.length === 0 ? [""] : words;
  // Global flags written before the command: complete their value, or skip them.
  for (let span = globalFlagSpan(input[0]); span > 0 && input.length > 1; span = globalFlagSpan(input[0])) {
    if (span === input.length) {
      const spec = globalFlag(input[0])!;
      const values = spec.values ?? await spec.propose?.(ctx).catch(() => []) ?? [];
      for (const value of values) if (value.startsWith(input[1])) ctx.stdout.write(`${value}\n`);
      return {};
    }
    input = input.slice(span);
  }
  const [full, { buildApp, buildTarget, proposeCompletions }] = await Promise.all([
    loadAll(root),
    import("./stricli.ts"),
  ]);
  const app = buildApp(buildTarget(full, [], [], ADDED_FLAGS, () => Promise.resolve()), () => {}, new Set());
  const proposals = await proposeCompletions(app, input, stricliContext(ctx, ctx.stdout));
  // Flags only once the word starts with a dash, as most shells' own completions do.
  const flags = input.at(-1)!.startsWith("-");
  for (const { kind, completion } of proposals) {
    if (completion !== "…" && (flags || kind !== "argument:flag")) ctx.stdout.write(`${completion}\n`);
  }
  return {};
}

function stricliContext(ctx: CliContext, out: CliContext["stdout"]) {
  const width = out.columns();
  return {
    ctl: ctx, // for completion proposals that read the config (profile names)
    process: {
      stdout: { write: (text: string) => out.write(wrapHelp(text, width)) },
      stderr: { write: () => {} }, // errors reach run.ts through the error sink instead
      env: { ...ctx.env, STRICLI_SKIP_VERSION_CHECK: "1" } as Record<string, string>,
    },
  };
}
