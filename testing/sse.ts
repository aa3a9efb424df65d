/**
 * Reads Server-Sent Events frames from a response body, for tests: each frame with its `id`,
 * `event`, parsed `data`, and comment lines (`: ping`) as `comment`.
 *
 * @example
 * ```ts
 * const res = await fetch(`${url}/tasks/${id}/stream`);
 * for await (const frame of sseFrames(res.body!)) if (frame.event === "done") break;
 * ```
 *
 * @module
 */
export interface SseFrame {
  readonly id?: string;
  readonly event?: string;
  readonly data?: Record<string, unknown>;
  readonly comment?: string;
  readonly retry?: number;
}

export async function* sseFrames(body: ReadableStream<Uint8Array>): AsyncGenerator<SseFrame> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end;
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const frame: Record<string, unknown> = {};
        const data: string[] = [];
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) frame.comment = line.slice(1).trim();
          else if (line.startsWith("data: ")) data.push(line.slice(6));
          else if (line.startsWith("id: ")) frame.id = line.slice(4);
          else if (line.startsWith("event: ")) frame.event = line.slice(7);
          else if (line.startsWith("retry: ")) frame.retry = Number(line.slice(7));
        }
        if (data.length > 0) frame.data = JSON.parse(data.join("\n"));
        yield frame as SseFrame;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** The event frames (no comments, no retry) of a stream until it ends, or until `until` says stop. */
export async function sseEvents(
  body: ReadableStream<Uint8Array>,
  until?: (frame: SseFrame, count: number) => boolean,
): Promise<SseFrame[]> {
  const out: SseFrame[] = [];
  for await (const frame of sseFrames(body)) {
    if (frame.event === undefined) continue;
    out.push(frame);
    if (until?.(frame, out.length)) break;
  }
  return out;
}
