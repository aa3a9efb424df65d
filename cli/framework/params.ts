import { StoreCtlError } from "../../lib/errors/mod.ts";
import type { CliContext } from "../context.ts";

type Letter =
  | "a"
  | "b"
  | "c"
  | "d"
  | "e"
  | "f"
  | "g"
  | "i"
  | "j"
  | "k"
  | "l"
  | "m"
  | "n"
  | "o"
  | "p"
  | "q"
  | "r"
  | "s"
  | "t"
  | "u"
  | "v"
  | "w"
  | "x"
  | "y"
  | "z"
  | "H";

/** A flag of a command; `T` is the value the command receives. */
export interface Flag<T> {
  readonly kind: "parsed" | "boolean" | "counter";
  readonly brief: string;
  readonly alias?: Letter;
  readonly placeholder?: string;
  /** Parses one value (one occurrence, for a repeatable flag); `T` is what the command receives. */
  readonly parse?: (input: string) => unknown;
  /** ResultWithOutput in help and parsed when the flag is absent. */
  readonly default?: string;
  /** Repeatable: every occurrence adds a value. */
  readonly variadic?: boolean;
  /**
   * The command cannot run without it (a flag that takes a value, with no default): help shows
   * it without brackets and in the usage line, and a command line without it is a usage error
   * (`--x is required`, exit 2) before the command runs.
   */
  readonly required?: boolean;
  readonly hidden?: boolean;
  /** Values offered by shell completion. */
  readonly values?: readonly string[];
  /** Values offered by shell completion that depend on the user's files (profile names). */
  readonly propose?: (ctx: CliContext) => Promise<readonly string[]>;
  /** Phantom: carries `T` for type inference. */
  readonly type?: T;
}

/** A positional argument; `T` is the value the command receives. */
export interface Arg<T> {
  readonly name: string;
  readonly brief: string;
  readonly parse: (input: string) => T;
  readonly optional?: boolean;
  readonly values?: readonly string[];
  readonly type?: T;
}

/** The values a command receives for its flags. */
export type FlagValues<F> = { readonly [K in keyof F]: F[K] extends Flag<infer T> ? T : never };
/** The values a command receives for its arguments. */
export type ArgValues<A> = { readonly [K in keyof A]: A[K] extends Arg<infer T> ? T : never };

function usage(message: string): StoreCtlError {
  return new StoreCtlError("usage", message);
}

/**
 * Parsers throw usage errors that start with "must": the adapter puts the flag or argument name
 * in front (`--timeout must be …`).
 */
function choose<V extends string>(values: readonly V[]): (input: string) => V {
  return (input) => {
    if ((values as readonly string[]).includes(input)) return input as V;
    throw usage(`must be one of ${values.join(", ")}; got '${input}'`);
  };
}

/** A number between `min` and `max` (inclusive). */
function boundedNumber(bounds: { min: number; max: number; integer?: boolean }): (input: string) => number {
  return (input) => {
    const value = Number(input);
    const integer = bounds.integer ?? false;
    if (input.trim() === "" || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
      throw usage(`must be ${integer ? "a whole number" : "a number"}; got '${input}'`);
    }
    if (value < bounds.min || value > bounds.max) {
      throw usage(`must be from ${bounds.min} to ${bounds.max}; got '${input}'`);
    }
    return value;
  };
}

/** Flag constructors. */
export const flag = {
  /** A text value; optional unless `required`. */
  string(
    brief: string,
    options: { alias?: Letter; placeholder?: string; hidden?: boolean; required?: boolean } = {},
  ): Flag<string | undefined> {
    return { kind: "parsed", brief, parse: String, placeholder: "value", ...options };
  },
  /** An on/off switch, off by default. */
  boolean(brief: string, options: { alias?: Letter; hidden?: boolean } = {}): Flag<boolean> {
    return { kind: "boolean", brief, ...options };
  },
  /** How often the flag is given (`-vv` is 2). */
  count(brief: string, options: { alias?: Letter } = {}): Flag<number> {
    return { kind: "counter", brief, ...options };
  },
  /** One of `values`, or undefined. */
  choice<const V extends string>(brief: string, values: readonly V[], options: { alias?: Letter } = {}): Flag<
    V | undefined
  > {
    return { kind: "parsed", brief, parse: choose(values), placeholder: values.join("|"), values, ...options };
  },
  /** A number within bounds, with a default. */
  number(
    brief: string,
    options: { min: number; max: number; integer?: boolean; default: number; placeholder?: string },
  ): Flag<number> {
    return {
      kind: "parsed",
      brief: `${brief} (${options.min}–${options.max})`,
      parse: boundedNumber(options),
      default: String(options.default),
      placeholder: options.placeholder ?? "n",
    };
  },
  /** A repeatable value: `-H a -H b` gives `["a", "b"]`. */
  list(brief: string, options: { alias?: Letter; placeholder?: string } = {}): Flag<readonly string[]> {
    return { kind: "parsed", brief, parse: String, variadic: true, placeholder: "value", ...options };
  },
};

/** Argument constructors. */
export const arg = {
  /** A required text argument. */
  string(name: string, brief: string): Arg<string> {
    return { name, brief, parse: String };
  },
  /** An optional text argument. */
  optional(name: string, brief: string): Arg<string | undefined> {
    return { name, brief, parse: String, optional: true };
  },
  /** One of `values`. */
  choice<const V extends string>(name: string, brief: string, values: readonly V[]): Arg<V> {
    return { name, brief, parse: choose(values), values };
  },
  /** One of `values`, or nothing. */
  optionalChoice<const V extends string>(name: string, brief: string, values: readonly V[]): Arg<V | undefined> {
    return { name, brief, parse: choose(values), values, optional: true };
  },
};
