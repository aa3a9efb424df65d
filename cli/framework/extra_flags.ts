import { GLOBAL_FLAGS } from "./globals.ts";
import { type Flag, flag } from "./params.ts";
import type { ExtraFlags } from "./stricli.ts";

/** The flags the adapter adds: the global ones to every command, others where a spec asks. */
export const ADDED_FLAGS: ExtraFlags = {
  global: GLOBAL_FLAGS as Record<string, Flag<unknown>>,
  forSpec: (spec) => ({
    ...(spec.output?.writesFile && {
      file: flag.string(spec.output.fileBrief ?? "write the result to this file", { placeholder: "path" }),
    }),
    ...(spec.confirm && { yes: flag.boolean("do not ask for confirmation", { alias: "y" }) }),
  }),
};
