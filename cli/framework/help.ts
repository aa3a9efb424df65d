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
