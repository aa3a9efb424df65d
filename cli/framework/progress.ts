import { formatSize } from "../../lib/output/mod.ts";
import type { StdStream } from "../../lib/runtime/mod.ts";
import { type StatusLine, statusLine } from "./status_line.ts";

const SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";

/** The line is redrawn at most this often. */
const REDRAW_MS = 200;

/** A 20-cell bar for a fraction done: `[██████░░░░░░░░░░░░░░]`. */
function bar(fraction: number): string {
  const full = Math.max(0, Math.min(20, Math.floor(fraction * 20)));
  return `[${"█".repeat(full)}${"░".repeat(20 - full)}]`;
}

/** What a progress line is drawn from. */
export interface ProgressOptions {
  readonly label: string;
  readonly total?: number;
  readonly stderr: StdStream;
  readonly now: () => number;
  /** Show a bar in front when the size is known, else a turning spinner (so a stalled transfer shows). */
  readonly spinner?: boolean;
  /** The status line to draw on (shared with other messages of the command); default a new one. */
  readonly line?: StatusLine;
}

/** A progress line fed with byte counts (e.g. from a workflow's callbacks). */
export interface Progress {
  /** Bytes done so far; redraws at most every 200 ms. */
  update(done: number): void;
  /** Erases the line. */
  clear(): void;
}

/**
 * A status line on `stderr` showing bytes, rate and, when the size is known, percent and time
 * left, in IEC units. Nothing is shown when stderr is not a terminal.
 */
export function progressLine(options: ProgressOptions): Progress {
  const { now, total, label } = options;
  if (!options.stderr.isTTY) return { update() {}, clear() {} };
  const line = options.line ?? statusLine(options.stderr);
  const started = now();
  let frame = 0;
  let shown = -Infinity;
  return {
    update(done) {
      if (now() - shown < REDRAW_MS) return;
      shown = now();
      const rate = done / Math.max((now() - started) / 1000, 0.001);
      const spin = !options.spinner ? "" : total ? `${bar(done / total)} ` : `${SPINNER[frame++ % SPINNER.length]} `;
      const parts = [`${spin}${label}: ${formatSize(done)}`];
      if (total) {
        parts[0] += ` of ${formatSize(total)} (${Math.floor((done / total) * 100)}%)`;
        if (rate > 0 && done < total) parts.push(`${Math.ceil((total - done) / rate)} s left`);
      }
      parts.push(`${formatSize(rate)}/s`);
      line.show(parts.join(", "));
    },
    clear: () => line.clear(),
  };
}

/**
 * Passes a download through while a progress line (`progressLine`) shows how far it is; the
 * line is erased when the download ends, well or not.
 */
export function withProgress(body: ReadableStream<Uint8Array>, options: ProgressOptions): ReadableStream<Uint8Array> {
  if (!options.stderr.isTTY) return body;
  const progress = progressLine(options);
  let received = 0;
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          progress.clear();
          return controller.close();
        }
        received += value.length;
        progress.update(received);
        controller.enqueue(value);
      } catch (error) {
        progress.clear();
        controller.error(error);
      }
    },
    cancel(reason) {
      progress.clear();
      return reader.cancel(reason);
    },
  });
}
