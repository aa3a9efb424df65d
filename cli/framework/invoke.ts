import type { CliContext } from "../context.ts";
import { createFactory, type Factory } from "../factory.ts";
import { confirmOrStop } from "./confirm.ts";
import { GLOBAL_FLAGS, type GlobalOptions } from "./globals.ts";
import { outputTarget, writeResult } from "./output.ts";
import { type CommandSpec, ResultWithOutput } from "./spec.ts";

/**
 * Runs a parsed command: builds the factory from the global options, asks for confirmation,
 * runs the specification and writes the result. Loaded only once
 * the command line names a command, so `--help` never loads the API clients.
 */
export async function invoke(
  spec: CommandSpec,
  values: Record<string, unknown>,
  args: unknown[],
  ctx: CliContext,
  started: (factory: Factory) => void,
) {
  const globals = Object.fromEntries(Object.keys(GLOBAL_FLAGS).map((name) => [name, values[name]])) as GlobalOptions;
  const flags = Object.fromEntries(Object.entries(values).filter(([name]) => !(name in GLOBAL_FLAGS)));
  const factory = createFactory(ctx, { ...globals, raw: globals.raw ?? false, insecure: globals.insecure ?? false });
  started(factory);
  const output = outputTarget(factory.globals, spec.output ?? {}, flags.file as string | undefined);
  const input = { flags, args, output } as Parameters<CommandSpec["run"]>[0];
  const question = spec.confirm?.(input);
  // A dry run changes nothing: there is nothing to confirm.
  if (question && !globals.dryRun) await confirmOrStop(ctx, question, flags.yes === true);
  const data = await spec.run(input, factory);
  if (data instanceof ResultWithOutput) await writeResult(factory, data.data, data.output, output);
  else if (data !== undefined) await writeResult(factory, data, spec.output ?? {}, output);
}
