import type { StdStream } from "../../lib/runtime/mod.ts";
import { wrapLine } from "../../lib/text/mod.ts";

/** A label whose text continues under itself: `Error: `, `Warning: `, `  tip: `, a list item `  1. `. */
const LABEL = /^\s*(Error: |Warning: |tip: |\d+\. |- )/;

/**
 * Standard error for people: on a terminal, each whole line of a write is wrapped at the
 * terminal's width, its continuation under the text of its label (`Error: `, `  tip: `…).
 * Lines that redraw themselves (`\r`, escape sequences) and a prompt's open line pass as written;
 * so does everything when stderr is not a terminal.
 */
export function forPeople(stderr: StdStream): StdStream {
  if (!stderr.isTTY) return stderr;
  return {
    ...stderr,
    write(data) {
      const width = stderr.columns();
      if (typeof data !== "string" || width === undefined || width < 20) return stderr.write(data);
      const lines = data.split("\n");
      const open = lines.pop()!; // after the last newline: a prompt, or nothing
      const wrapped = lines.map((line) =>
        line.includes("\r") || line.includes("\x1b") ? line : wrapLine(line, width, line.match(LABEL)?.[0].length ?? 0)
      );
      stderr.write([...wrapped, open].join("\n"));
    },
    get closed() {
      return stderr.closed;
    },
  };
}
