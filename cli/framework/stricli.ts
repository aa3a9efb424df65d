import {
  AliasNotFoundError,
  type Application,
  ArgumentParseError,
  buildApplication,
  buildCommand,
  buildRouteMap,
  type CommandContext,
  FlagNotFoundError,
  help,
  InvalidNegatedFlagSyntaxError,
  text_en,
  UnexpectedFlagError,
  UnexpectedPositionalError,
  UnsatisfiedFlagError,
  UnsatisfiedPositionalError,
} from "@stricli/core";
import { StoreCtlError } from "../../lib/errors/mod.ts";
import type { CliContext } from "../context.ts";
import { reflow } from "../../lib/text/mod.ts";
import type { Arg, Flag } from "./params.ts";
import type { CommandSpec, Entry } from "./spec.ts";
import type { Loaded } from "./tree.ts";

export { proposeCompletions, run } from "@stricli/core";

// The parser's own types are precise generics over each command; specs are checked by our own
// types instead, so the parser is handed plain shapes.
type AnyTarget = ReturnType<typeof buildCommand> | ReturnType<typeof buildRouteMap>;
// deno-lint-ignore no-explicit-any
type ParserShape = any;

/** Runs a command once the parser has read its flags and arguments. */
export type Runner = (spec: CommandSpec, flags: Record<string, unknown>, args: unknown[]) => Promise<void>;

/** What completion proposals can read: the parser's context carries ctl's effects. */
export interface CompletionContext {
  readonly ctl: CliContext;
}

/** Flags the adapter adds to every command, or to commands that need them. */
export interface ExtraFlags {
  readonly global: Record<string, Flag<unknown>>;
  readonly forSpec: (spec: CommandSpec) => Record<string, Flag<unknown>>;
}

/**
 * The parser's flag. A required flag is optional to the parser, which reports a missing flag and
 * one without a value by the same error; `commandFor` checks it instead, and help shows it as
 * required (`asRequired`).
 */
function toFlag(spec: Flag<unknown>, asRequired = false) {
  const base = { brief: spec.brief, placeholder: spec.placeholder, hidden: spec.hidden };
  switch (spec.kind) {
    case "boolean":
      return { ...base, kind: "boolean", optional: true, withNegated: false };
    case "counter":
      return { ...base, kind: "counter", optional: true };
    default:
      return {
        ...base,
        kind: "parsed",
        parse: spec.parse ?? String,
        ...(spec.variadic
          ? { variadic: true, optional: !(spec.required && asRequired) }
          : spec.default !== undefined
          ? { default: spec.default }
          : spec.required && asRequired
          ? {}
          : { optional: true }),
        ...(spec.values && { proposeCompletions: () => spec.values }),
        ...(spec.propose && {
          proposeCompletions(this: CompletionContext) {
            return spec.propose!(this.ctl).catch(() => []);
          },
        }),
      };
  }
}

function toPositional(arg: Arg<unknown>) {
  return {
    brief: arg.values ? `${arg.brief}: ${arg.values.join(", ")}` : arg.brief,
    placeholder: arg.name,
    parse: arg.parse,
    optional: arg.optional,
    ...(arg.values && { proposeCompletions: () => arg.values }),
  };
}

/** `configFile` → `config-file`: the parser gets flags by the names users type. */
const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function commandFor(spec: CommandSpec, extra: ExtraFlags, run: Runner): AnyTarget {
  const flags = { ...spec.flags, ...extra.forSpec(spec), ...extra.global } as Record<string, Flag<unknown>>;
  // Kebab-case names spare the parser converting every name on every lookup (milliseconds a run).
  const names = Object.keys(flags);
  const aliases = Object.fromEntries(
    names.flatMap((name) => (flags[name].alias ? [[flags[name].alias, kebab(name)]] : [])),
  );
  const required = names.filter((name) => flags[name].required && flags[name].kind === "parsed");
  const examples = spec.examples?.length ? `\n\nExamples:\n${spec.examples.map((e) => `  ${e}`).join("\n")}` : "";
  const positional = { kind: "tuple", parameters: (spec.args ?? []).map(toPositional) };
  const docs = { brief: spec.summary, fullDescription: `${reflow(spec.description ?? spec.summary)}${examples}` };
  const parameters = (asRequired: boolean) => ({
    flags: Object.fromEntries(names.map((name) => [kebab(name), toFlag(flags[name], asRequired)])),
    aliases,
    positional,
  });
  // Required flags are checked as the command starts, before its question and its work, where
  // `-o json` already applies to the error.
  const need = (values: Record<string, unknown>) => {
    const missing = required.find((name) => values[name] === undefined);
    if (missing) throw requiredFlag(kebab(missing), flags[missing]);
  };
  const checked: CommandSpec = required.length === 0 ? spec : {
    ...spec,
    confirm: spec.confirm && ((input) => (need(input.flags), spec.confirm!(input))),
    run: (input, factory) => (need(input.flags), spec.run(input, factory)),
  };
  const command = buildCommand({
    func: (values: Record<string, unknown>, ...args: unknown[]) =>
      run(checked, Object.fromEntries(names.map((name) => [name, values[kebab(name)]])), args),
    parameters: parameters(false),
    docs,
  } as ParserShape);
  if (required.length === 0) return command;
  // Help and usage come from the same command with its required flags marked so.
  const shown = buildCommand({ func: () => {}, parameters: parameters(true), docs } as ParserShape);
  return Object.assign(command, {
    formatUsageLine: (args: ParserShape) => requiredInUsage(shown.formatUsageLine(args)),
    formatHelp: (args: ParserShape) => {
      const [usage, ...rest] = shown.formatHelp(args).split("\n\n");
      return [requiredInUsage(usage), ...rest].join("\n\n");
    },
  });
}

/** The parser writes a required flag in a usage line as `(--flag id)`; `ctl` writes `--flag <id>`. */
function requiredInUsage(usage: string): string {
  return usage.replace(/\((--[\w-]+|-\w) ([^()\s]+)\)/g, "$1 <$2>");
}

function requiredFlag(name: string, flag: Flag<unknown>): StoreCtlError {
  return new StoreCtlError("usage", `--${name} is required`, {
    reason: "bad_arguments",
    tips: [`Give --${name} <${flag.placeholder ?? "value"}>: ${flag.brief}`],
  });
}

/** A stand-in for a module not loaded in this run: it lists in help with its summary. */
function stub(summary: string): AnyTarget {
  const nothing = buildCommand({ func: () => {}, parameters: {}, docs: { brief: summary } } as ParserShape);
  return buildRouteMap({ routes: { "…": nothing }, docs: { brief: summary, hideRoute: { "…": true } } } as ParserShape);
}

/**
 * The parser's tree for one run: entries along `path` fully built, others in the same groups
 * built if already loaded and stubbed if not (so help lists them without loading them).
 */
export function buildTarget(
  target: Loaded,
  path: readonly string[],
  loaded: readonly Loaded[],
  extra: ExtraFlags,
  run: Runner,
): AnyTarget {
  if (target.kind === "command") return commandFor(target, extra, run);
  const routes: Record<string, AnyTarget> = {};
  const hidden: Record<string, boolean> = {};
  for (const [name, entry] of Object.entries(target.commands) as [string, Entry][]) {
    if (name === path[0]) routes[name] = buildTarget(loaded[0], path.slice(1), loaded.slice(1), extra, run);
    else if (entry.kind === "lazy") routes[name] = stub(entry.summary);
    else routes[name] = buildTarget(entry, [], [], extra, run);
    if (entry.kind === "command" && entry.hidden) hidden[name] = true;
  }
  return buildRouteMap({
    routes,
    docs: { brief: target.summary, fullDescription: target.description, hideRoute: hidden },
  } as ParserShape);
}

/** Receives the parser's errors as `StoreCtlError`s instead of text. */
export type ErrorSink = (error: unknown) => void;

/** The parser application for one run; its errors go to `sink`, never to a stream. */
export function buildApp(
  root: AnyTarget,
  sink: ErrorSink,
  placeholders: ReadonlySet<string>,
): Application<CommandContext> {
  const quiet = (error: unknown) => (sink(error), "");
  return buildApplication(root as ParserShape, {
    name: "ctl",
    scanner: { caseStyle: "original", allowArgumentEscapeSequence: true },
    localization: {
      text: {
        ...text_en,
        noCommandRegisteredForInput: ({ input, corrections }) => quiet(unknownCommand(input, corrections)),
        exceptionWhileParsingArguments: (error: unknown) => quiet(parseError(error, placeholders)),
        exceptionWhileLoadingCommandFunction: quiet,
        exceptionWhileLoadingCommandContext: quiet,
        exceptionWhileRunningCommand: quiet,
        commandErrorResult: quiet,
      },
    },
  }, {
    help: help({
      brief: "show help",
      alias: "h",
      defaultForRouteMap: true,
      formatting: { useAliasInUsageLine: true, onlyRequiredInUsageLine: true, caseStyle: "original" },
    }),
  });
}

function unquote(word: string): string {
  return word.replace(/^`|`$/g, "");
}

function unknownCommand(input: string, corrections: readonly string[]): StoreCtlError {
  return new StoreCtlError("usage", `Unknown command '${input}'`, {
    reason: "unknown_command",
    tips: corrections.length ? [`Did you mean '${unquote(corrections[0])}'?`] : [],
  });
}

/** A parser error as the message `ctl` prints. */
function parseError(error: unknown, placeholders: ReadonlySet<string>): unknown {
  const usage = (message: string, tips: string[] = []) =>
    new StoreCtlError("usage", message, { tips, reason: "bad_arguments" });
  if (error instanceof FlagNotFoundError) {
    const tips = error.corrections.length ? [`Did you mean --${error.corrections[0]}?`] : [];
    return usage(`Unknown flag --${error.input}`, tips);
  }
  if (error instanceof AliasNotFoundError) return usage(`Unknown flag -${error.input}`);
  if (error instanceof ArgumentParseError) {
    const name = error.externalFlagNameOrPlaceholder;
    const what = placeholders.has(name) ? `<${name}>` : `--${name}`;
    const cause = error.exception;
    const said = cause instanceof Error ? cause.message : String(cause);
    return usage(/^must /.test(said) ? `${what} ${said}` : `Invalid value '${error.input}' for ${what}: ${said}`, [
      ...(cause instanceof StoreCtlError ? cause.tips : []),
    ]);
  }
  if (error instanceof UnsatisfiedFlagError) {
    return usage(
      `--${error.externalFlagName} needs a value${error.nextFlagName ? ` (found --${error.nextFlagName})` : ""}`,
    );
  }
  if (error instanceof UnsatisfiedPositionalError) return usage(`Missing required argument '${error.placeholder}'`);
  if (error instanceof UnexpectedPositionalError) {
    return usage(`Unexpected argument '${error.input}' (this command takes ${error.expectedCount})`);
  }
  if (error instanceof UnexpectedFlagError) {
    return usage(`--${error.externalFlagName} was given twice ('${error.previousInput}' and '${error.input}')`);
  }
  if (error instanceof InvalidNegatedFlagSyntaxError) return usage(error.message);
  return error;
}
