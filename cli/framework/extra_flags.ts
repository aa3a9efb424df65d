import { GLOBAL_FLAGS } from "./globals.ts";
import { type Flag, flag } from "./params.ts";
import type { ExtraFlags } from "./stricli.ts";

/** The flags of a command that can wait for its cloud task. */
export const WAIT_FLAGS = {
  wait: flag.boolean("wait until the operation has finished, then print its result"),
  waitTimeout: flag.number("give up waiting after this many seconds", {
    min: 1,
    max: 86_400,
    integer: true,
    default: 600,
    placeholder: "seconds",
  }),
  waitInterval: flag.number(
    "shortest pause between polls, in seconds; later ones grow to a quarter of the time waited, up to 5 s",
    {
      min: 0.1,
      max: 60,
      default: 1,
      placeholder: "seconds",
    },
  ),
};

/** The flags the adapter adds: the global ones to every command, others where a spec asks. */
export const ADDED_FLAGS: ExtraFlags = {
  global: GLOBAL_FLAGS as Record<string, Flag<unknown>>,
  forSpec: (spec) => ({
    ...(spec.output?.writesFile && {
      file: flag.string(spec.output.fileBrief ?? "write the result to this file", { placeholder: "path" }),
    }),
    ...(spec.confirm && { yes: flag.boolean("do not ask for confirmation", { alias: "y" }) }),
    ...(spec.wait && WAIT_FLAGS),
  }),
};
