/**
 * A2A streams as Server-Sent Events, on the service's one SSE machinery (`server/sse.ts`: shared
 * heartbeats, a bounded outgoing buffer). Each frame's `id` is the task event it came from, so a
 * client that reconnects with `Last-Event-ID` misses nothing and gets nothing twice.
 *
 * @module
 */
import { StoreUnavailableError } from "../../lib/store/mod.ts";
import { type createEventStreams, StreamEnded } from "../sse.ts";
import type { StreamItem } from "./methods.ts";
import type { Json } from "./wire.ts";

/** How a binding writes one stream response, and the error that ends a stream early. */
export interface Framing {
  readonly data: (response: Json) => string;
  readonly error: (message: string) => string;
}

/** An SSE response of `items`, each batch written at once; `stop` is aborted when the stream ends. */
export function sseResponse(
  streams: ReturnType<typeof createEventStreams>,
  items: AsyncIterable<StreamItem[]>,
  framing: Framing,
  stop: AbortController,
): Response {
  return streams.respond(async (sink) => {
    sink.signal.addEventListener("abort", () => stop.abort(), { once: true });
    try {
      for await (const batch of items) {
        let text = "";
        batch.forEach(({ eventId, response }, i) => {
          // The id on an event's last frame only: a client cut off between two frames of one event resumes before it.
          const last = eventId !== undefined && batch[i + 1]?.eventId !== eventId;
          text += `${last ? `id: ${eventId}\n` : ""}data: ${framing.data(response)}\n\n`;
        });
        await sink.write(text);
      }
    } catch (error) {
      if (sink.signal.aborted || error instanceof StreamEnded) return; // the client left or was cut off
      if (!(error instanceof StoreUnavailableError)) throw error;
      await sink.write(framing.error(`The store stopped answering (${error.message}); subscribe again to resume`));
    } finally {
      stop.abort();
    }
  }, { "x-accel-buffering": "no" });
}
