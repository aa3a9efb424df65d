import type { Format, TableColumn } from "../../lib/output/mod.ts";

import type { Factory } from "../factory.ts";
import type { Arg, ArgValues, Flag, FlagValues } from "./params.ts";

/**
 * A table column of a human command: a header, where its value comes from, and how it gives
 * way on a narrow terminal (`role`; by default the first column, NAME and STATUS are keys).
 */
export type Column = TableColumn;

/** How a command's result is written. */
export interface OutputSpec {
  /** Table columns; without them `auto` prints JSON even on a terminal. */
  readonly columns?: readonly Column[];
  /**
   * The rows of the table, when they are not the data itself (an object keyed by name becomes
   * one row per key); JSON and YAML keep the data as the API gave it.
   */
  readonly rows?: (data: unknown) => unknown;
  /** Said on stderr when a table would be empty, e.g. "No profiles yet". */
  readonly empty?: string;
  /** The command can write its result to a file: `-o <path>` and `--file <path>` are accepted. */
  readonly writesFile?: boolean;
  /** What `--file` writes, for help, when it is not the result (e.g. a downloaded package). */
  readonly fileBrief?: string;
}

/** Where a command's result goes: a format, and a file when the command writes one. */
export interface OutputTarget {
  readonly format: Format;
  readonly file?: string;
}

/** What a command's `run` receives. */
export interface Input<F, A> {
  readonly flags: FlagValues<F>;
  readonly args: ArgValues<A>;
  readonly output: OutputTarget;
}

/**
 * One verb, declared: the adapter (`framework/app.ts`) turns it into a parser command with the
 * global flags, prompts, output formatting and error handling, so `run` holds only its logic.
 */
export interface CommandSpec<F = Record<string, Flag<unknown>>, A = readonly Arg<unknown>[]> {
  readonly kind: "command";
  /** One line, lower case, no full stop: shown in lists. */
  readonly summary: string;
  /** Paragraphs shown by `--help`. */
  readonly description?: string;
  readonly args?: A;
  readonly flags?: F;
  readonly examples?: readonly string[];
  readonly output?: OutputSpec;
  /**
   * The question to confirm before a destructive action, or undefined to go ahead. Adds
   * `-y/--yes`; with no terminal, `--yes` is required.
   */
  readonly confirm?: (input: Input<F, A>) => string | undefined;
  /** Hidden from help and completion. */
  readonly hidden?: boolean;
  /** Returns the data to write (through `-o`, `-q`, `--raw`), a `ResultWithOutput` to write it otherwise, or nothing. */
  run(input: Input<F, A>, factory: Factory): Promise<unknown>;
}

/**
 * A result written with an output spec of its own, for a `run` whose result is not always what
 * the command's table shows (e.g. a task reference where the table is for what the task makes).
 */
export class ResultWithOutput {
  readonly data: unknown;
  readonly output: OutputSpec;

  constructor(data: unknown, output: OutputSpec) {
    this.data = data;
    this.output = output;
  }
}

/** Commands under a noun. */
export interface GroupSpec {
  readonly kind: "group";
  readonly summary: string;
  readonly description?: string;
  readonly commands: Readonly<Record<string, Entry>>;
}

/** A command or group whose module loads only when the command line reaches it. */
export interface LazySpec {
  readonly kind: "lazy";
  readonly summary: string;
  load(): Promise<{ readonly default: CommandSpec | GroupSpec }>;
}

export type Entry = CommandSpec | GroupSpec | LazySpec;

/** Declares a command, inferring the types of its flags and arguments. */
export function command<
  const F extends Record<string, Flag<unknown>> = Record<never, Flag<unknown>>,
  const A extends readonly Arg<unknown>[] = [],
>(spec: Omit<CommandSpec<F, A>, "kind">): CommandSpec {
  return { kind: "command", ...spec } as unknown as CommandSpec;
}

/** Declares a noun and its commands. */
export function group(summary: string, commands: Record<string, Entry>, description?: string): GroupSpec {
  return { kind: "group", summary, commands, description };
}

/** A command or group loaded on demand: `lazy("manage profiles", () => import("./profile.ts"))`. */
export function lazy(summary: string, load: LazySpec["load"]): LazySpec {
  // Once: a second `import()` while the first is under way makes Deno load the module's graph again.
  let loading: ReturnType<LazySpec["load"]> | undefined;
  return { kind: "lazy", summary, load: () => loading ??= load() };
}
