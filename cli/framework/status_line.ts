import type { StdStream } from "../../lib/runtime/mod.ts";

/** One line of stderr that is rewritten in place (progress, spinners); silent when not a terminal. */
export interface StatusLine {
  show(text: string): void;
  /** Erases the line, so what follows starts clean. */
  clear(): void;
}

/** A status line on `stderr`, cut to the terminal's width. */
export function statusLine(stderr: StdStream): StatusLine {
  if (!stderr.isTTY) return { show() {}, clear() {} };
  let shown = false;
  return {
    show(text) {
      const width = stderr.columns() ?? 80;
      const chars = [...text];
      stderr.write(`\r\x1b[K${chars.length >= width ? `${chars.slice(0, width - 2).join("")}…` : text}`);
      shown = true;
    },
    clear() {
      if (shown) stderr.write("\r\x1b[K");
      shown = false;
    },
  };
}
