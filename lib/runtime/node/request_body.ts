import type { ClientRequest } from "node:http";
import type { TransportRequest } from "../../http/transport.ts";

/** Text or bytes as one buffer, so that its length can be sent as `content-length`. */
export function fixedBody(body: TransportRequest["body"]): Uint8Array | undefined {
  if (typeof body === "string") return new TextEncoder().encode(body);
  return body instanceof Uint8Array ? body : undefined;
}

/**
 * Sends a request body and ends the request. A stream is read one chunk at a time, waiting for
 * `drain` whenever the socket's buffer is full, so a large upload never piles up in memory. If
 * the request dies first (an abort, a broken connection), the stream is cancelled. Rejects only
 * when the stream cannot be read at all (already locked).
 */
export async function sendBody(request: ClientRequest, body: TransportRequest["body"]): Promise<void> {
  if (!(body instanceof ReadableStream)) return void request.end(fixedBody(body));
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (request.destroyed) return void reader.cancel().catch(() => {});
      if (done) return void request.end();
      if (!request.write(value)) await drained(request);
    }
  } catch (error) {
    // A failing source: the request goes down with it, and its 'error' event reports why.
    request.destroy(error as Error);
    reader.cancel(error).catch(() => {});
  }
}

/** Resolves on `drain`; rejects when the request closes first (drain would never come). */
function drained(request: ClientRequest): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      request.off("drain", done);
      request.off("close", closed);
      if (error) reject(error);
      else resolve();
    };
    const closed = () => done(new Error("the request closed while its body was being sent"));
    request.on("drain", done);
    request.on("close", closed);
  });
}
