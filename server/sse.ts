/**
 * Server-Sent Events bodies that stay small while idle: one `ReadableStream` per stream (no
 * `TransformStream` and writer, as `streamSSE` makes), backpressure through its `pull`, and one
 * heartbeat timer for all the open streams of a server instead of one per stream. Thousands of
 * streams wait for events at a time; each object they hold is multiplied by that.
 *
 * @module
 */

const encoder = new TextEncoder();

/** Where a stream's producer writes. */
export interface EventSink {
  /**
   * Sends `text` (whole frames); resolves once the client has room for more, so a slow client
   * holds back only its own producer. Rejects once the client has gone.
   */
  write(text: string): Promise<void>;
  /** Aborted when the client goes away (or the producer has finished). */
  readonly signal: AbortSignal;
}

interface OpenStream {
  lastWrite: number;
  readonly sink: EventSink;
}

/**
 * Makes `text/event-stream` responses whose idle streams share one `: ping` timer: a stream
 * silent for two thirds of `heartbeatMs` gets a ping. The timer runs only while streams are open.
 *
 * @example
 * ```ts
 * const sse = createEventStreams(15_000);
 * const response = sse.respond(async (sink) => {
 *   await sink.write('event: token\ndata: {"message":"Hi"}\n\n');
 * });
 * await response.text(); // 'event: token\ndata: {"message":"Hi"}\n\n'
 * ```
 */
export function createEventStreams(heartbeatMs: number) {
  const open = new Set<OpenStream>();
  let timer: ReturnType<typeof setInterval> | undefined;

  const ping = () => {
    const quiet = Date.now() - (heartbeatMs * 2) / 3;
    for (const stream of open) {
      if (stream.lastWrite <= quiet) stream.sink.write(": ping\n\n").catch(() => {});
    }
  };

  return {
    /**
     * A 200 event-stream response fed by `run`; the body ends when `run` settles and `run`'s
     * `sink.signal` aborts when the client leaves. An error `run` throws while the client is
     * still there errors the body.
     */
    respond(run: (sink: EventSink) => Promise<void>, headers: Record<string, string> = {}): Response {
      const aborter = new AbortController();
      let body!: ReadableStreamDefaultController<Uint8Array>;
      let room: (() => void) | undefined;
      const wake = () => {
        room?.();
        room = undefined;
      };
      const stream: OpenStream = {
        lastWrite: Date.now(),
        sink: {
          signal: aborter.signal,
          async write(text) {
            if (aborter.signal.aborted) throw new Error("The client has gone");
            body.enqueue(encoder.encode(text));
            stream.lastWrite = Date.now();
            if ((body.desiredSize ?? 1) < 0) await new Promise<void>((resolve) => room = resolve);
            if (aborter.signal.aborted) throw new Error("The client has gone");
          },
        },
      };
      const readable = new ReadableStream<Uint8Array>({
        start(controller) {
          body = controller;
        },
        pull: wake,
        cancel() {
          aborter.abort();
          wake();
        },
      });
      open.add(stream);
      timer ??= setInterval(ping, heartbeatMs / 3);
      run(stream.sink).then(
        () => body.close(),
        (error) => {
          if (!aborter.signal.aborted) body.error(error);
        },
      ).catch(() => {}) // closing a body the client cancelled throws: nothing to do
        .finally(() => {
          aborter.abort();
          open.delete(stream);
          if (open.size > 0) return;
          clearInterval(timer);
          timer = undefined;
        });
      return new Response(readable, {
        headers: { "content-type": "text/event-stream", "cache-control": "no-cache", ...headers },
      });
    },
  };
}
