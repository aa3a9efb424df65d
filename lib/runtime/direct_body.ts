/**
 * Responses whose body can write itself straight to Node's `http.ServerResponse`, instead of
 * being read through the web `ReadableStream` that `@hono/node-server` pulls (a promise and a
 * pull per chunk: ~8 % of a Node server's CPU fanning one channel out to 1,000 event streams).
 * Where there is no such connection (Deno, the edge, or a response a middleware replaced), the
 * body is read as usual: a direct body is only a faster way to send the same bytes.
 *
 * @module
 */

/** The part of `node:http`'s `ServerResponse` a direct body writes to. */
export interface DirectSink {
  /** False once the connection's buffer is full: wait for `drain`. */
  write(chunk: Uint8Array): boolean;
  end(): void;
  destroy(error?: Error): void;
  on(event: "drain" | "close", listener: () => void): unknown;
  readonly writableNeedDrain: boolean;
}

const DIRECT_BODY = Symbol("storectl.directBody");

/**
 * Marks `response` as able to write its body itself: a runtime that can calls `attach` once,
 * after sending the head, and never reads `response.body`.
 *
 * @example
 * ```ts
 * const response = withDirectBody(new Response("hi"), (sink) => {
 *   sink.write(new TextEncoder().encode("hi"));
 *   sink.end();
 * });
 * directBody(response) !== undefined; // true
 * ```
 */
export function withDirectBody(response: Response, attach: (sink: DirectSink) => void): Response {
  return Object.assign(response, { [DIRECT_BODY]: attach });
}

/** The writer {@link withDirectBody} gave `response`, if any. */
export function directBody(response: Response): ((sink: DirectSink) => void) | undefined {
  return (response as { [DIRECT_BODY]?: (sink: DirectSink) => void })[DIRECT_BODY];
}
