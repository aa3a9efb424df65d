import type { Gzip } from "node:zlib";

/**
 * A gzip transform that holds backpressure, so a slow reader keeps memory flat. Node's
 * `CompressionStream` buffers its whole input when the reader lags; this wraps `node:zlib` and
 * waits for the compressor to drain. `node:zlib` loads with the first stream: `ctl` never needs it.
 */
export function nodeGzip(): ReadableWritablePair<Uint8Array<ArrayBuffer>, BufferSource> {
  let gzip: Gzip;
  let failure: Error | undefined;
  return new TransformStream<BufferSource, Uint8Array<ArrayBuffer>>({
    async start(controller) {
      gzip = (await import("node:zlib")).createGzip();

      gzip.on("data", (chunk: Uint8Array) => {
        try {
          controller.enqueue(new Uint8Array(chunk));
        } catch {
          gzip.destroy(); // the reader cancelled: stop compressing instead of enqueueing into a closed stream
        }
      });

      gzip.on("error", (error) => failure = error);
    },
    transform(chunk) {
      if (failure) throw failure;
      const bytes = chunk instanceof ArrayBuffer ? new Uint8Array(chunk) : chunk;
      return new Promise((resolve) => gzip.write(bytes) ? resolve() : gzip.once("drain", resolve));
    },
    flush() {
      return new Promise((resolve, reject) => {
        gzip.once("end", resolve);
        gzip.once("error", reject);
        gzip.end();
      });
    },
  });
}
