import { StoreCtlError } from "../../lib/errors/mod.ts";
import type { CliContext } from "../context.ts";
import { createFactory, type Factory } from "../factory.ts";
import { confirmOrStop } from "./confirm.ts";
import { GLOBAL_FLAGS, type GlobalOptions } from "./globals.ts";
import { outputTarget, writeResult } from "./output.ts";
import type { CommandSpec } from "./spec.ts";

/**
 * Runs a parsed command: builds the factory from the global options, asks for confirmation,
 * runs the spec, waits for its cloud task when asked, and writes the result. Loaded only once
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
  if (question) await confirmOrStop(ctx, question, flags.yes === true);
  const data = await spec.run(input, factory);
  if (spec.wait) return await finishTask(factory, spec, data, input);
  if (data !== undefined) await writeResult(factory, data, spec.output ?? {}, output);
}

/** With `--wait`, waits for the task a command started and prints what it made; else the task reference. */
async function finishTask(
  factory: Factory,
  spec: CommandSpec,
  started: unknown,
  input: Parameters<CommandSpec["run"]>[0],
) {
  const { flags, output } = input;
  const { resumeCommand, waitFor } = await import("./wait.ts"); // with the cloud client: cloud commands only
  const ref = started as { taskId?: string; status?: string };
  if (typeof ref?.taskId !== "string") {
    throw new StoreCtlError("api", "The API answered without a task id; see the response with ctl api");
  }
  if (!flags.wait) {
    await writeResult(factory, started, {}, output);
    factory.ctx.stderr.write(
      `Task ${ref.taskId} is ${ref.status ?? "queued"}; wait for it with: ${resumeCommand(ref.taskId)}\n`,
    );
    return;
  }
  const task = await waitFor(factory, ref.taskId, {
    timeoutSeconds: flags.waitTimeout as number,
    intervalSeconds: flags.waitInterval as number,
  });
  const result = spec.wait?.resolve ? await spec.wait.resolve(task, factory, input) : task;
  await writeResult(factory, result, spec.output ?? {}, output);
}
