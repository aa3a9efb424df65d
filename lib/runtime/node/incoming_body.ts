import type { IncomingMessage } from "node:http";

/**
 * A response body as a web stream that reads from the socket only when its reader pulls: the
 * message stays paused in between, so TCP flow control holds a fast server back and a large
 * download never piles up in memory. `cancel()` destroys the socket; a connection that breaks
 * mid-body errors the stream with Node's `aborted`/`ECONNRESET` error; `message.destroy(reason)`
 * (an abort) errors it with `reason`.
 */
export function incomingBody(message: IncomingMessage): ReadableStream<Uint8Array> {
  let failure: { error: unknown } | undefined;
  let ended = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  message.on("readable", notify);
  message.on("end", () => {
    ended = true;
    notify();
  });
  message.on("error", (error) => {
    failure ??= { error };
    notify();
  });
  message.on("close", () => {
    // Destroyed without an error (e.g. by a socket that closed without one): still a failure.
    if (!ended) failure ??= { error: Object.assign(new Error("aborted"), { code: "ECONNRESET" }) };
    notify();
  });

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const chunk: Uint8Array | null = message.read();
        if (chunk !== null) {
          // A plain view, not the Buffer: Buffer's slice() shares memory where Uint8Array's copies.
          return controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        }
        if (failure) throw failure.error;
        if (ended) return controller.close();
        await new Promise<void>((resolve) => wake = resolve);
      }
    },
    cancel() {
      ended = true;
      message.destroy();
    },
  }, { highWaterMark: 0 });
}
