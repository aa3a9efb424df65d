import type { StdStream } from "../../lib/runtime/mod.ts";

/** Sizes as people read them: `12.3 MB` (SI units, like curl's and browsers'). */
export function formatBytes(bytes: number): string {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/**
 * Passes a download through while a status line on `stderr` shows bytes, rate and, when the
 * size is known, percent and time left. Nothing is shown when stderr is not a terminal.
 */
export function withProgress(
  body: ReadableStream<Uint8Array>,
  options: { label: string; total?: number; stderr: StdStream; now: () => number },
): ReadableStream<Uint8Array> {
  const { stderr, now, total, label } = options;
  if (!stderr.isTTY) return body;
  const started = now();
  let received = 0;
  let shown = 0;
  const line = () => {
    const seconds = Math.max((now() - started) / 1000, 0.001);
    const rate = received / seconds;
    const parts = [`${label}: ${formatBytes(received)}`];
    if (total) {
      parts[0] += ` of ${formatBytes(total)} (${Math.floor((received / total) * 100)}%)`;
      if (rate > 0 && received < total) parts.push(`${Math.ceil((total - received) / rate)} s left`);
    }
    parts.push(`${formatBytes(rate)}/s`);
    const text = parts.join(", ");
    const width = stderr.columns() ?? 80;
    stderr.write(`\r\x1b[K${[...text].length >= width ? `${[...text].slice(0, width - 2).join("")}…` : text}`);
  };
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        received += chunk.length;
        if (now() - shown >= 200) {
          shown = now();
          line();
        }
        controller.enqueue(chunk);
      },
      flush() {
        stderr.write("\r\x1b[K");
      },
    }),
  );
}
