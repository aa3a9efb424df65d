/**
 * What one SSE stream sends: its channel's history a page at a time, paced by the client, then
 * live events, until its task ends, the client leaves or falls too far behind, or the stream's
 * check finds the task or the channel gone from the store.
 *
 * @module
 */
import { type EventLog, StoreUnavailableError, type TaskStore } from "../../lib/store/mod.ts";
import { FINAL_EVENT_KINDS, type StoredEvent } from "../../lib/tasks/mod.ts";
import { type EventSink, StreamEnded } from "../sse.ts";
import { inSpan, isTracing, SpanKind, type TaskTrace } from "../../lib/tracing/mod.ts";

/** History is read and sent this many events at a time, each page once the client took the last. */
export const HISTORY_PAGE = 1_000;

/** Where a stream starts and when it ends. */
export interface StreamPlan {
  readonly channel: string;
  /** Frames go out for events above this id: the client's `Last-Event-ID`, or where it starts. */
  readonly sendAfter: number;
  /**
   * Reading starts above this id, at most `sendAfter`: a task stream resumed past its channel's
   * end reads from that end, so that it sees the task's final event and ends with it.
   */
  readonly readAfter: number;
  /** Only these kinds are sent (the stream still ends on a final event it does not send). */
  readonly filter?: ReadonlySet<string>;
  /** A task stream: it ends after this task's `done`, `failed` or `cancelled`. */
  readonly taskId?: string;
  /** A task that had already ended: the stream ends once it has read up to this id. */
  readonly until?: number;
  /** The kinds of the task's own events that end a task stream (default: done, failed, cancelled). */
  readonly endKinds?: ReadonlySet<string>;
  /** Each event's frames (none: the event is not sent); default `id`, `event` and `data` as they are stored. */
  readonly render?: (event: StoredEvent) => Uint8Array | undefined;
  /**
   * A client that falls behind live events is caught up from the log, a page at a time as it
   * takes them, instead of being cut off (for clients that do not reconnect with `Last-Event-ID`).
   */
  readonly keepUp?: boolean;
  /** The followed task's trace: with tracing on, the stream is a span of it. */
  readonly trace?: TaskTrace;
}

/** The highest id a stream has read from its channel, shared by its producer and its check. */
export interface StreamState {
  lastRead: number;
}

/**
 * Encoded frames of recent events, shared by every stream that sends them (the followers of a
 * channel get the same event objects): each event is serialised and encoded once, not once per
 * subscriber. Oldest first out past this many bytes: a cache keyed by events that stay in memory
 * (the memory store keeps them) must not keep a copy of each.
 */
const FRAME_CACHE_BYTES = 8 * 1024 * 1024;
const encoder = new TextEncoder();
const frames = new Map<StoredEvent, Uint8Array>();
let cachedBytes = 0;
function frame(event: StoredEvent): Uint8Array {
  const cached = frames.get(event);
  if (cached) return cached;
  const bytes = encoder.encode(`id: ${event.id}\nevent: ${event.kind}\ndata: ${JSON.stringify(event.data)}\n\n`);
  frames.set(event, bytes);
  cachedBytes += bytes.length;
  for (const [old, oldBytes] of frames) {
    if (cachedBytes <= FRAME_CACHE_BYTES) break;
    frames.delete(old);
    cachedBytes -= oldBytes.length;
  }
  return bytes;
}

/**
 * A live batch's frames joined into one chunk, made once for all the streams that send the
 * whole batch as stored: each stream's connection takes one write per batch instead of one per
 * frame (Node writes each chunk of a response on its own). Live batches are shared by the
 * channel's streams (`EventLog.watch`), so the chunk goes with its batch.
 */
const joined = new WeakMap<readonly StoredEvent[], Uint8Array>();
function join(batch: readonly StoredEvent[], pieces: Uint8Array[]): Uint8Array[] {
  if (pieces.length < 2) return pieces;
  let chunk = joined.get(batch);
  if (!chunk) {
    let size = 0;
    for (const piece of pieces) size += piece.length;
    chunk = new Uint8Array(size);
    size = 0;
    for (const piece of pieces) {
      chunk.set(piece, size);
      size += piece.length;
    }
    joined.set(batch, chunk);
  }
  return [chunk];
}

/** Sends what `plan` says to `out`; see the module doc. */
export async function feedStream(
  events: EventLog,
  out: EventSink,
  plan: StreamPlan,
  state: StreamState,
): Promise<void> {
  if (!plan.trace || !isTracing()) return await feed(events, out, plan, state, { frames: 0 });
  const span = { kind: SpanKind.PRODUCER, parent: plan.trace, attributes: { "storectl.task.id": plan.taskId } };
  await inSpan(`stream ${plan.channel}`, span, async (traced) => {
    const sent = { frames: 0 };
    await feed(events, out, plan, state, sent);
    traced?.setAttribute("storectl.stream.frames", sent.frames);
  });
}

async function feed(
  events: EventLog,
  out: EventSink,
  plan: StreamPlan,
  state: StreamState,
  sent: { frames: number },
): Promise<void> {
  const render = plan.render ?? frame;
  const endKinds = plan.endKinds ?? FINAL_EVENT_KINDS;
  const take = (batch: readonly StoredEvent[]) => {
    const out: Uint8Array[] = [];
    for (const event of batch) {
      state.lastRead = event.id;
      if (event.id > plan.sendAfter && (!plan.filter || plan.filter.has(event.kind))) {
        const bytes = render(event);
        if (bytes) {
          out.push(bytes);
          sent.frames++;
        }
      }
      const final = plan.taskId !== undefined && endKinds.has(event.kind) && event.data.task_id === plan.taskId;
      if (final || (plan.until !== undefined && event.id >= plan.until)) return { frames: out, ended: true };
    }
    return { frames: out, ended: false };
  };
  try {
    await out.write("retry: 1000\n\n"); // reconnects come back within a second
    let position = plan.readAfter;
    for (;;) {
      for (;;) {
        const page = await events.range(plan.channel, position, HISTORY_PAGE);
        if (page.length === 0) break;
        position = page[page.length - 1].id;
        const { frames, ended } = take(page);
        if (frames.length > 0) {
          await out.drained(); // a page at a time: a client that does not read holds no more than one
          await out.write(frames);
        }
        if (ended) return;
        if (page.length < HISTORY_PAGE) break;
      }
      if (plan.until !== undefined) return; // an ended task: its history was everything
      const live = await followLive(events, out, plan, position, take);
      if (!live.behind) return;
      position = live.position; // caught up from the log once the client has taken what it was sent
      await out.drained();
    }
  } catch (error) {
    if (out.signal.aborted || error instanceof StreamEnded) return; // the client left or was cut off
    if (error instanceof StoreUnavailableError) {
      out.end(`the store stopped answering (${error.message}); reconnect with Last-Event-ID to resume`);
      return;
    }
    throw error;
  }
}

/**
 * Live events to `out` as the store tells them (`events.watch`: one batch for all the channel's
 * streams, no promise or iterator per stream per batch), until the stream ends or, with
 * `keepUp`, the client is behind: a batch that comes while the last is still being sent is read
 * again from the log (`behind`, with the position reached). Rejects with the store's error.
 */
function followLive(
  events: EventLog,
  out: EventSink,
  plan: StreamPlan,
  after: number,
  take: (batch: readonly StoredEvent[]) => { frames: Uint8Array[]; ended: boolean },
): Promise<{ behind: boolean; position: number }> {
  return new Promise((resolve, reject) => {
    let position = after;
    const watching = new AbortController();
    const finish = (behind: boolean, error?: unknown) => {
      if (watching.signal.aborted) return;
      watching.abort();
      out.signal.removeEventListener("abort", gone);
      if (error === undefined) resolve({ behind, position });
      else reject(error);
    };
    const gone = () => finish(false);
    if (out.signal.aborted) return gone();
    out.signal.addEventListener("abort", gone, { once: true });
    events.watch(plan.channel, after, watching.signal, {
      take(batch) {
        if (plan.keepUp && out.buffered > 0) return finish(true);
        position = batch[batch.length - 1].id;
        try {
          const { frames, ended } = take(batch);
          // Every event sent, in the stored frames: the same chunk as the channel's other such streams.
          const whole = frames.length === batch.length && !plan.render ? join(batch, frames) : frames;
          if (whole.length > 0 && !out.send(whole)) return finish(false); // cut off, or gone
          if (ended) finish(false);
        } catch (error) { // a render that failed: this stream's, not the channel's other watchers'
          finish(false, error);
        }
      },
      end: (error) => finish(false, error),
    });
  });
}

/**
 * The check of quiet streams (run at their pings): a task stream ends when its task no longer
 * exists (deleted, or a store restarted empty), any stream when its channel now ends below what
 * it read (the store lost the channel's events). The store is asked once per channel per
 * `everyMs`, however many streams follow it.
 */
export function streamChecks(events: EventLog, tasks: TaskStore, everyMs: number) {
  const recent = new Map<string, { at: number; value: Promise<unknown> }>();
  const once = <T>(key: string, read: () => Promise<T>): Promise<T> => {
    const now = Date.now();
    const hit = recent.get(key);
    if (hit && now - hit.at < everyMs) return hit.value as Promise<T>;
    if (recent.size > 10_000) { for (const [k, v] of recent) if (now - v.at >= everyMs) recent.delete(k); }
    const value = read();
    recent.set(key, { at: now, value });
    return value;
  };
  return async (plan: StreamPlan, state: StreamState): Promise<string | undefined> => {
    if (plan.taskId !== undefined) {
      const task = await once(`task:${plan.taskId}`, () => tasks.get(plan.taskId!));
      if (!task) {
        return `task ${plan.taskId} no longer exists (deleted, or the store lost it); this stream ends`;
      }
    }
    const last = await once(`last:${plan.channel}`, () => events.last(plan.channel));
    if (last < state.lastRead) {
      return `the store lost this channel's events (it now ends at id ${last}, this stream had read ${state.lastRead}); ` +
        "reconnect to follow it again";
    }
    return undefined;
  };
}
