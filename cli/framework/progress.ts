import { formatSize } from "../../lib/output/mod.ts";
import type { StdStream } from "../../lib/runtime/mod.ts";
import { statusLine } from "./status_line.ts";

const SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";

/** A 20-cell bar for a fraction done: `[██████░░░░░░░░░░░░░░]`. */
function bar(fraction: number): string {
  const full = Math.max(0, Math.min(20, Math.floor(fraction * 20)));
  return `[${"█".repeat(full)}${"░".repeat(20 - full)}]`;
}

/**
 * Passes a download through while a status line on `stderr` shows bytes, rate and, when the
 * size is known, percent and time left. Nothing is shown when stderr is not a terminal; the
 * line is erased when the download ends, well or not.
 */
export function withProgress(
  body: ReadableStream<Uint8Array>,
  options: {
    label: string;
    total?: number;
    stderr: StdStream;
    now: () => number;
    /**
     * Show a bar in front when the size is known, else a turning spinner (so a stalled download
     * shows).
     */
    spinner?: boolean;
  },
): ReadableStream<Uint8Array> {
  const { now, total, label } = options;
  let frame = 0;
  if (!options.stderr.isTTY) return body;
  const line = statusLine(options.stderr);
  const started = now();
  let received = 0;
  let shown = -Infinity;
  const update = () => {
    const rate = received / Math.max((now() - started) / 1000, 0.001);
    const spin = !options.spinner ? "" : total ? `${bar(received / total)} ` : `${SPINNER[frame++ % SPINNER.length]} `;
    const parts = [`${spin}${label}: ${formatSize(received)}`];
    if (total) {
      parts[0] += ` of ${formatSize(total)} (${Math.floor((received / total) * 100)}%)`;
      if (rate > 0 && received < total) parts.push(`${Math.ceil((total - received) / rate)} s left`);
    }
    parts.push(`${formatSize(rate)}/s`);
    line.show(parts.join(", "));
  };
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          line.clear();
          return controller.close();
        }
        received += value.length;
        if (now() - shown >= 200) {
          shown = now();
          update();
        }
        controller.enqueue(value);
      } catch (error) {
        line.clear();
        controller.error(error);
      }
    },
    cancel(reason) {
      line.clear();
      return reader.cancel(reason);
    },
  });
}
