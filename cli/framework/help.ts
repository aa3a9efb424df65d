import { reflow } from "../../lib/text/mod.ts";
import type { Entry, GroupSpec } from "./spec.ts";

/**
 * The help of a group (`ctl --help`, `ctl profile`): a usage line per command, the description,
 * the commands with their summaries and the help flag. Built from the specs alone, so showing it
 * loads neither the parser nor the modules of commands that are not loaded yet.
 *
 * @example
 * ```ts
 * import { groupHelp } from "./help.ts";
 * import { group, lazy } from "./spec.ts";
 * const cloud = group("manage cloud resources", { task: lazy("follow tasks", () => Promise.reject()) });
 * groupHelp(["cloud"], cloud);
 * // "USAGE\n  ctl cloud task …\n  ctl cloud --help\n\nmanage cloud resources\n\nCOMMANDS\n  task  follow tasks\n\nFLAGS\n  -h  --help  show help\n"
 * ```
 */
export function groupHelp(path: readonly string[], spec: GroupSpec): string {
  const prefix = ["ctl", ...path].join(" ");
  const shown = Object.entries(spec.commands).filter(([, entry]) => !(entry.kind === "command" && entry.hidden));
  const usage = shown.map(([name, entry]) => `  ${prefix} ${name}${usageTail(entry)}`);
  const width = Math.max(...shown.map(([name]) => name.length));
  const commands = shown.map(([name, entry]) => `  ${name.padEnd(width)}  ${entry.summary}`);
  return [
    `USAGE\n${usage.join("\n")}\n  ${prefix} --help`,
    reflow(spec.description ?? spec.summary),
    `COMMANDS\n${commands.join("\n")}`,
    path.length === 0
      ? "FLAGS\n  -h  --help     show help\n      --version  print the version"
      : "FLAGS\n  -h  --help  show help",
  ].join("\n\n") + "\n";
}

/** What follows a command's name on its usage line: its arguments, or `…` for a group. */
function usageTail(entry: Entry): string {
  if (entry.kind !== "command") return " …";
  return (entry.args ?? []).map((arg) => (arg.optional ? ` [${arg.name}]` : ` <${arg.name}>`)).join("");
}
