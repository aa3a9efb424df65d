import { Command, type CommandUnknownOpts, InvalidArgumentError } from "@commander-js/extra-typings";
import { apiCommand } from "./commands/api.ts";
import { completionCommands } from "./commands/completions.ts";
import { profileCommand } from "./commands/profile.ts";
import type { CliContext } from "./context.ts";
import { VERSION } from "../lib/version/mod.ts";

const positiveNumber = (value: string) => {
  const n = Number(value);
  if (!(n > 0)) throw new InvalidArgumentError(`expected a number of seconds greater than 0, got '${value}'`);
  return n;
};
const count = (value: string) => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`expected a whole number, got '${value}'`);
  return Number(value);
};

/**
 * The `ctl` command tree, writing through `ctx`. Errors are thrown, never printed here.
 * `withCompletions: false` leaves out the completion commands (tab adds its own).
 */
export function buildProgram(ctx: CliContext, withCompletions = true): CommandUnknownOpts {
  const program = new Command("ctl")
    .description("Command-line client for the cloud and enterprise management APIs")
    .version(VERSION, "--version", "print the version")
    .option("-p, --profile <name>", "profile to use (env: STORE_PROFILE; default: the deployment type's default)")
    .option("--config-file <path>", "config file (env: STORE_CONFIG_FILE)")
    .option(
      "-o, --output <format|file>",
      "json, yaml, table or auto (table on a terminal, JSON when piped); or a file path",
    )
    .option("--file <path>", "write a binary response to this file (unambiguous form of -o <file>)")
    .option("-q, --query <jmespath>", "filter the output with a JMESPath expression")
    .option("--raw", "print scalars unquoted, arrays of scalars one per line")
    .option(
      "-v, --verbose",
      "log to stderr: -v info, -vv debug (env: STORE_LOG, RUST_LOG)",
      (_v, n: number) => n + 1,
      0,
    )
    .option("--insecure", "accept any TLS certificate (enterprise; env: STORE_ENTERPRISE_INSECURE)")
    .option("--ca-cert <file>", "trust this PEM certificate (enterprise; env: STORE_ENTERPRISE_CA_CERT)")
    .option("--timeout <seconds>", "connect and idle timeout", positiveNumber, 30)
    .option("--retries <n>", "retries of failed requests that are safe to repeat", count, 3)
    .addHelpText(
      "after",
      `
Examples:
  ctl profile set lab --deployment enterprise --url https://cluster:9443 --username admin@example.com --password '…'
  ctl api enterprise get /v1/bdbs -q '[].name'
  ctl api cloud get /subscriptions -o yaml`,
    );
  program.addCommand(apiCommand(ctx));
  program.addCommand(profileCommand(ctx));
  if (withCompletions) {
    const [completions, complete] = completionCommands(() => buildProgram(ctx, false));
    program.addCommand(completions);
    program.addCommand(complete, { hidden: true });
  }
  configure(program, ctx);
  return program;
}

/** Applies error handling and output settings to every command of the tree. */
function configure(command: CommandUnknownOpts, ctx: CliContext) {
  command
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => ctx.stdout.write(text),
      writeErr: (text) => ctx.stderr.write(text),
      outputError: () => {}, // run() prints errors in one format
    });
  for (const sub of command.commands) configure(sub, ctx);
}
