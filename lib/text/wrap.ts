/**
 * Text for people at a terminal: help and messages wrapped to its width, paragraphs flowed,
 * commands broken like shell lines. Shared by `ctl`, the service's and the emulator's `--help`.
 *
 * @module
 */

/** Help is wrapped at this width when it does not go to a terminal (a pipe, a file). */
const DEFAULT_WIDTH = 80;
/** A list item: `1. `, `- `, `* ` at the start of a line. */
const LIST_ITEM = /^\s*(\d+\.|[-*])\s+(?=\S)/;
/** Sections whose indented lines are commands: broken like a shell line, never inside an argument. */
const COMMAND_SECTIONS = new Set(["USAGE", "Examples:"]);

/**
 * Joins the lines of each paragraph of a description written pre-wrapped, so help can flow it
 * to the terminal's width. Blank lines stay; a list item (`1. `, `- `) starts a line and its
 * indented lines join it; other indented lines (examples) stay as written.
 *
 * @example
 * ```ts
 * import { reflow } from "./wrap.ts";
 * reflow("Create a database. The API\nworks asynchronously.\n\nExamples:\n  ctl a");
 * // "Create a database. The API works asynchronously.\n\nExamples:\n  ctl a"
 * ```
 */
export function reflow(text: string): string {
  const out: string[] = [];
  let open: "paragraph" | "item" | undefined; // what the next line may continue
  for (const line of text.split("\n")) {
    const indented = /^\s/.test(line);
    if (line.trim() === "") {
      out.push("");
      open = undefined;
    } else if (LIST_ITEM.test(line)) {
      out.push(line.trimEnd());
      open = "item";
    } else if (indented ? open === "item" : open === "paragraph") {
      out[out.length - 1] += ` ${line.trim()}`;
    } else {
      out.push(line.trimEnd());
      open = indented ? undefined : "paragraph";
    }
  }
  return out.join("\n");
}

/**
 * Wraps help text at `width` (80 when there is no terminal; not below 40). Paragraphs break
 * between words; list items continue under their text; a flag table's description continues
 * under its own column. Commands (usage lines, examples) break only between arguments, a flag
 * kept with its value and quoted text whole, with a trailing ` \` as a shell line does; an
 * argument longer than the line stays whole.
 *
 * @example
 * ```ts
 * import { wrapHelp } from "./wrap.ts";
 * wrapHelp("  --timeout  connect and idle timeout in seconds", 40);
 * // "  --timeout  connect and idle timeout in\n             seconds"
 * wrapHelp("Examples:\n  ctl cloud database list --subscription 156400 -o json", 40);
 * // "Examples:\n  ctl cloud database list \\\n      --subscription 156400 -o json"
 * ```
 */
export function wrapHelp(text: string, width: number | undefined): string {
  const w = width ?? DEFAULT_WIDTH;
  if (w < 40) return text;
  let commands = false;
  return text.split("\n").map((line) => {
    if (line.trim() === "") commands = false;
    else if (COMMAND_SECTIONS.has(line)) commands = true;
    else if (commands && /^\s/.test(line)) return wrapCommand(line, w);
    return wrapLine(line, w);
  }).join("\n");
}

/**
 * Breaks `line` between words to fit `width`, continuing in `column` (by default under a list
 * item's text, or a flag table's description column, or at the line's indent); a word longer
 * than the line overflows.
 */
export function wrapLine(line: string, width: number, hanging?: number): string {
  if ([...line].length <= width) return line;
  const indent = line.match(/^ */)![0].length;
  // The column continuation lines start in: under a list item's text, under the description
  // column of a table row (after its last gap of two or more spaces in the left half: a gap
  // further right is inside the description, e.g. before `[default = 30]`), or the line's indent.
  let column = hanging ?? line.match(LIST_ITEM)?.[0].length ?? indent;
  if (hanging === undefined && indent > 0) {
    for (const gap of line.slice(0, width).matchAll(/ {2,}(?=\S)/g)) {
      if (gap.index! + gap[0].length <= width / 2) column = gap.index! + gap[0].length;
    }
  }
  const out: string[] = [];
  let rest = line;
  let lead = "";
  while ([...rest].length > width) {
    const room = width - lead.length;
    const body = rest.slice(lead.length);
    let cut = body.lastIndexOf(" ", room);
    if (cut <= column - lead.length) cut = body.indexOf(" ", room); // one long word: let it overflow
    if (cut < 0) break;
    out.push((lead + body.slice(0, cut)).trimEnd());
    lead = " ".repeat(column);
    rest = lead + body.slice(cut).trimStart();
  }
  out.push(rest);
  return out.join("\n");
}

/**
 * Breaks a command line between its arguments, shell style: `ctl a b \` then the rest indented
 * four more. A flag stays with its value; quoted text is one argument.
 */
function wrapCommand(line: string, width: number): string {
  if ([...line].length <= width) return line;
  const indent = line.match(/^ */)![0];
  const groups = argumentGroups(shellWords(line.trim()));
  const lines: string[] = [];
  let current = indent + groups[0];
  for (let i = 1; i < groups.length; i++) {
    const last = i === groups.length - 1;
    const candidate = `${current} ${groups[i]}`;
    if ([...candidate].length + (last ? 0 : 2) <= width) {
      current = candidate;
    } else {
      lines.push(`${current} \\`);
      current = `${indent}    ${groups[i]}`;
    }
  }
  lines.push(current);
  return lines.join("\n");
}

/** The words of a shell command as written (quotes kept): spaces inside quotes do not split. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let word = "";
  let quote: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (quote) {
      if (c === "\\" && quote === '"' && i + 1 < command.length) word += c + command[++i];
      else word += c;
      if (c === quote) quote = undefined;
    } else if (c === " ") {
      if (word) words.push(word);
      word = "";
    } else {
      if (c === "'" || c === '"') quote = c;
      if (c === "\\" && i + 1 < command.length) word += c + command[++i];
      else word += c;
    }
  }
  if (word) words.push(word);
  return words;
}

/** Words joined into the units a line may break between: a flag with the value that follows it. */
function argumentGroups(words: readonly string[]): string[] {
  const groups: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    const next = words[i + 1];
    const takesNext = /^-/.test(word) && !word.includes("=") && next !== undefined && !/^-/.test(next) &&
      !/^[|>&]/.test(next);
    groups.push(takesNext ? `${word} ${next}` : word);
    if (takesNext) i++;
  }
  return groups;
}
