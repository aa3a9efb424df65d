import type { Entry, GroupSpec } from "./spec.ts";

/**
 * Wraps help text at `width`. A long line breaks between words, and its continuation lines start
 * under the column the broken text began in (the description column of a flag table).
 *
 * @example
 * ```ts
 * import { wrapHelp } from "./help.ts";
 * wrapHelp("  --timeout  connect and idle timeout in seconds", 30);
 * // "  --timeout  connect and idle\n             timeout in seconds"
 * ```
 */
export function wrapHelp(text: string, width: number | undefined): string {
  if (!width || width < 40) return text;
  return text.split("\n").map((line) => wrapLine(line, width)).join("\n");
}

function wrapLine(line: string, width: number): string {
  if ([...line].length <= width) return line;
  // The column where the text being broken starts: after the last gap of two or more spaces.
  let column = line.match(/^ */)?.[0].length ?? 0;
  for (const gap of line.slice(0, width).matchAll(/ {2,}(?=\S)/g)) column = gap.index! + gap[0].length;
  if (column > width / 2) column = 4;
  const out: string[] = [];
  let rest = line;
  let indent = "";
  while ([...rest].length > width) {
    const room = width - indent.length;
    const body = rest.slice(indent.length);
    let cut = body.lastIndexOf(" ", room);
    if (cut <= column - indent.length) cut = body.indexOf(" ", room); // one long word: let it overflow
    if (cut < 0) break;
    out.push((indent + body.slice(0, cut)).trimEnd());
    indent = " ".repeat(column);
    rest = indent + body.slice(cut).trimStart();
  }
  out.push(rest);
  return out.join("\n");
}

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
    spec.description ?? spec.summary,
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
