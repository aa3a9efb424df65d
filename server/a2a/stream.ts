/**
 * A2A streams as Server-Sent Events, fed like the service's own task streams (`feedStream`:
 * stored events a page at a time as the client takes them, then live ones, one write per batch,
 * on the shared heartbeat and a bounded outgoing buffer). Each frame's `id` is the task event it
 * came from, on the last frame of an event that makes two, so a client that reconnects with
 * `Last-Event-ID` misses nothing and gets nothing twice.
 *
 * @module
 */
import type { Context } from "hono";
import type { EventLog } from "../../lib/store/mod.ts";
import { type StoredEvent, taskChannel } from "../../lib/tasks/mod.ts";
import { feedStream } from "../routes/stream_feed.ts";
import type { createEventStreams } from "../sse.ts";
import type { TaskStream } from "./methods.ts";
import { streamTexts } from "./wire.ts";

const encoder = new TextEncoder();

/** The event a reconnecting client saw last (`Last-Event-ID`), when it sent one; its coming back is counted. */
export function resumedAfter(c: Context, streams: ReturnType<typeof createEventStreams>): number | undefined {
  const header = c.req.header("last-event-id");
  if (header === undefined || !/^\d+$/.test(header)) return undefined;
  streams.resumed("a2a");
  return Number(header);
}

/** An SSE response of `stream`, each stream response's JSON text written as `data` by `framing`. */
export function sseResponse(
  streams: ReturnType<typeof createEventStreams>,
  events: EventLog,
  stream: TaskStream,
  framing: (json: string) => string,
): Response {
  const frame = (json: string, id?: number) => `${id !== undefined ? `id: ${id}\n` : ""}data: ${framing(json)}\n\n`;
  const texts = streamTexts(stream.record);
  let firstToken = !stream.tokensStarted;
  const render = (event: StoredEvent) => {
    const responses = texts(event, firstToken);
    if (event.kind === "token") firstToken = false;
    if (responses.length === 0) return undefined;
    return encoder.encode(
      responses.map((r, i) => frame(r, i === responses.length - 1 ? event.id : undefined)).join(""),
    );
  };
  const taskId = stream.record.task_id;
  return streams.respond(
    async (sink) => {
      if (stream.first) await sink.write(frame(JSON.stringify(stream.first.response), stream.first.eventId));
      const { after, endKinds } = stream;
      const plan = {
        channel: taskChannel(taskId),
        sendAfter: after,
        readAfter: after,
        taskId,
        endKinds,
        render,
        keepUp: true,
        trace: stream.record.trace,
      };
      await feedStream(events, sink, plan, { lastRead: after });
    },
    { "x-accel-buffering": "no" },
    undefined,
    "a2a",
  );
}
