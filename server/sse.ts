/**
 * Server-Sent Events bodies that stay small while idle and bounded while a client lags: one
 * `ReadableStream` per stream (no `TransformStream` and writer, as `streamSSE` makes), one
 * heartbeat timer for all the open streams of a server instead of one per stream, and an
 * outgoing buffer per stream with a byte limit. Thousands of streams wait for events at a
 * time; each object they hold is multiplied by that.
 *
 * @module
 */

import { Draining } from "./errors.ts";
import { type DirectSink, withDirectBody } from "../lib/runtime/mod.ts";

const encoder = new TextEncoder();

/** Thrown by {@link EventSink.write} once the stream has ended (client gone, cut off, or ended by the server). */
export class StreamEnded extends Error {
  constructor(why: string) {
    super(why);
    this.name = "StreamEnded";
  }
}

/** Where a stream's producer writes. */
export interface EventSink {
  /**
   * Queues whole frames for the client without waiting: text, or encoded frames (which may be
   * shared with other streams: they are never copied or changed). A client that does not take
   * what it is sent (it stopped reading, or reads slower than the events come) leaves it in
   * the stream's outgoing buffer; past the buffer's limit the stream is cut off (see
   * {@link createEventStreams}) and this rejects with {@link StreamEnded}, as it does once the
   * stream has ended for any reason.
   */
  write(frames: string | readonly Uint8Array[]): Promise<void>;
  /**
   * {@link write} without a promise, for a producer told of events by a callback: false instead
   * of the rejection (the stream has ended, or was cut off by this write).
   */
  send(frames: readonly Uint8Array[]): boolean;
  /** Resolves once the outgoing buffer is empty (everything written was taken), or once the stream has ended. */
  drained(): Promise<void>;
  /** Bytes written and not taken yet. */
  readonly buffered: number;
  /** Ends the stream after what was written, with `: <comment>` as its last frame. */
  end(comment: string): void;
  /** Aborted when the stream ends: the client went away, was cut off, or the server ended it. */
  readonly signal: AbortSignal;
}

/** Settings of {@link createEventStreams}. */
export interface EventStreamOptions {
  /** A stream silent for two thirds of this gets a `: ping` comment (and its check runs). */
  readonly heartbeatMs: number;
  /** The outgoing buffer of each stream, in bytes: a client further behind than this is cut off. */
  readonly bufferBytes: number;
  /** Told of streams opening and closing, the frames they take and the ones cut off (metrics). */
  readonly observer?: StreamObserver;
  /**
   * The process's drain (SIGTERM): when `signal` aborts, each open stream ends after what it was
   * sent with `retry: <retryMs>` and a comment telling its client to resume with `Last-Event-ID`
   * (behind a load balancer, on another process), and a stream asked for from then on is refused
   * ({@link Draining}: 503 with `Retry-After`).
   */
  readonly drain?: { readonly signal: AbortSignal; readonly retryMs: number };
}

/** The last frame of a stream ended by the drain: reconnect in `retryMs`, where the client left off. */
export function drainFrame(retryMs: number): string {
  return `retry: ${retryMs}\n: this server is shutting down; reconnect with Last-Event-ID ` +
    "(the id of the last event received) to resume on another\n\n";
}

/** What a stream does, by the kind of channel it follows (`task`, `session`, `global`, `a2a`). */
export interface StreamObserver {
  opened(channel: string): void;
  closed(channel: string): void;
  /** `count` frames taken for sending. */
  frames(channel: string, count: number): void;
  cutOff(channel: string): void;
  /** A client resumed: it came with a `Last-Event-ID`. */
  resumed(channel: string): void;
}

/** Asked on a quiet stream's ping: a reason (its final comment) ends the stream; undefined keeps it. */
export type StreamCheck = () => Promise<string | undefined>;

/** The final comment of a stream cut off for lagging. */
export function cutOffComment(bufferBytes: number): string {
  return `this client fell more than ${bufferBytes} bytes behind the stream and was cut off; ` +
    "reconnect with Last-Event-ID (the id of the last event received) to resume from there";
}

/**
 * Makes `text/event-stream` responses whose idle streams share one `: ping` timer: a stream
 * silent for two thirds of `heartbeatMs` gets a ping, and its `check`, if any, runs. The timer
 * runs only while streams are open.
 *
 * Frames go to the connection as fast as it takes them. What it does not take waits in the
 * stream's outgoing buffer; when that would pass `bufferBytes`, the stream is cut off: the
 * waiting frames are dropped (the event log keeps them) and the stream ends with a comment
 * telling the client to reconnect with `Last-Event-ID` ({@link cutOffComment}). So a client
 * that stops reading costs the server at most `bufferBytes` (plus what the runtime's HTTP
 * layer and the kernel hold for its connection), and never holds back the other streams.
 *
 * @example
 * ```ts
 * const sse = createEventStreams({ heartbeatMs: 15_000, bufferBytes: 131_072 });
 * const response = sse.respond(async (sink) => {
 *   await sink.write('event: token\ndata: {"message":"Hi"}\n\n');
 * });
 * await response.text(); // 'event: token\ndata: {"message":"Hi"}\n\n'
 * ```
 */
export function createEventStreams(options: EventStreamOptions) {
  const { heartbeatMs, bufferBytes, drain } = options;
  const open = new Set<OutgoingStream>();
  let timer: ReturnType<typeof setInterval> | undefined;
  drain?.signal.addEventListener("abort", () => {
    for (const stream of open) stream.finish(drainFrame(drain.retryMs));
  }, { once: true });

  const tick = () => {
    const quiet = Date.now() - (heartbeatMs * 2) / 3;
    for (const stream of open) {
      if (stream.lastWrite > quiet || stream.signal.aborted) continue;
      stream.write(": ping\n\n").catch(() => {});
      if (!stream.check || stream.checking) continue;
      stream.checking = true;
      stream.check().then((reason) => {
        if (reason !== undefined) stream.end(reason);
      }, () => {}) // the store did not answer: keep the stream, ask again at the next ping
        .finally(() => stream.checking = false);
    }
  };

  return {
    /** A client came back with a `Last-Event-ID` on a stream of `channel`'s kind (metrics). */
    resumed(channel: string): void {
      options.observer?.resumed(channel);
    },
    /**
     * A 200 event-stream response fed by `run`; the body ends when `run` settles (after what it
     * wrote has been taken) and `run`'s `sink.signal` aborts when the stream ends. An error
     * `run` throws while the stream is still open errors the body.
     */
    respond(
      run: (sink: EventSink) => Promise<void>,
      headers: Record<string, string> = {},
      check?: StreamCheck,
      channel = "stream",
    ): Response {
      if (drain?.signal.aborted) throw new Draining("streams", drain.retryMs);
      const observer = options.observer;
      const stream = new OutgoingStream(
        bufferBytes,
        check,
        observer && {
          frames: (count) => observer.frames(channel, count),
          cutOff: () => observer.cutOff(channel),
        },
      );
      observer?.opened(channel);
      open.add(stream);
      timer ??= setInterval(tick, heartbeatMs / 3);
      run(stream).then(() => stream.stop("The stream has ended"), (error) => stream.fail(error))
        .catch(() => {}) // a body the client cancelled meanwhile: nothing to do
        .finally(() => {
          stream.release();
          open.delete(stream);
          observer?.closed(channel);
          if (open.size > 0) return;
          clearInterval(timer);
          timer = undefined;
        });
      const response = new Response(stream.body, {
        headers: { "content-type": "text/event-stream", "cache-control": "no-cache", ...headers },
      });
      return withDirectBody(response, (sink) => stream.attach(sink));
    },
  };
}

/**
 * One stream: the sink its producer writes to, and the body the connection reads (or, on Node,
 * the connection it writes to: {@link OutgoingStream.attach}), with the buffer between.
 */
class OutgoingStream implements EventSink {
  readonly body: ReadableStream<Uint8Array>;
  lastWrite = Date.now();
  checking = false;
  readonly check?: StreamCheck;
  readonly #bufferBytes: number;
  readonly #aborter = new AbortController();
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  /** The connection written to directly, once attached: the body is then never read. */
  #sink?: DirectSink;
  /** The connection has asked for data and got none yet. */
  #asking = false;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  /** Why no more writes are taken. */
  #ended: string | undefined;
  /** Close once the buffer is flushed. */
  #closing = false;
  /** Closed, errored or cancelled. */
  #finished = false;
  #drains: (() => void)[] = [];

  readonly #told?: { frames(count: number): void; cutOff(): void };

  constructor(bufferBytes: number, check?: StreamCheck, told?: { frames(count: number): void; cutOff(): void }) {
    this.#bufferBytes = bufferBytes;
    this.check = check;
    this.#told = told;
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      pull: () => {
        this.#asking = true;
        this.#flush();
      },
      cancel: () => this.#gone(),
    }, { highWaterMark: 0 }); // pull means the connection wants data now
  }

  /** Writes to `sink` from now on, as fast as it takes the frames, instead of waiting to be read. */
  attach(sink: DirectSink): void {
    this.#sink = sink;
    sink.on("drain", () => this.#flush());
    sink.on("close", () => this.#gone()); // after our end() too: nothing left to do then
    this.#flush();
  }

  #gone() {
    if (this.#finished) return;
    this.#finished = true;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#ended ??= "The client has gone";
    this.release();
  }

  get signal(): AbortSignal {
    return this.#aborter.signal;
  }

  get buffered(): number {
    return this.#pendingBytes;
  }

  write(frames: string | readonly Uint8Array[]): Promise<void> {
    if (this.send(typeof frames === "string" ? [encoder.encode(frames)] : frames)) return Promise.resolve();
    return Promise.reject(new StreamEnded(this.#ended!));
  }

  send(pieces: readonly Uint8Array[]): boolean {
    if (this.#ended !== undefined) return false;
    let size = 0;
    for (const piece of pieces) size += piece.length;
    this.lastWrite = Date.now();
    if (this.#pendingBytes > 0 && this.#pendingBytes + size > this.#bufferBytes) {
      this.#pending = [encoder.encode(`: ${cutOffComment(this.#bufferBytes)}\n\n`)];
      this.#pendingBytes = this.#pending[0].length;
      this.stop("The client fell behind and was cut off");
      this.#told?.cutOff();
      return false;
    }
    this.#told?.frames(pieces.length);
    for (const piece of pieces) this.#pending.push(piece);
    this.#pendingBytes += size;
    this.#flush();
    return true;
  }

  drained(): Promise<void> {
    if (this.#pending.length === 0 || this.#ended !== undefined) return Promise.resolve();
    return new Promise((resolve) => this.#drains.push(resolve));
  }

  end(comment: string): void {
    this.finish(`: ${comment}\n\n`);
  }

  /** Ends the stream after what was written, with `frame` last. */
  finish(frame: string): void {
    if (this.#ended !== undefined) return;
    const bytes = encoder.encode(frame);
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.length;
    this.stop("The server ended the stream");
  }

  /** No more writes: what is buffered goes out, then the body closes. */
  stop(why: string): void {
    this.#ended ??= why;
    this.#closing = true;
    this.#aborter.abort();
    this.#flush();
    this.#settleDrains(); // a producer waiting for room stops now: its writes fail from here on
  }

  /** The producer failed while the stream was open: the body errors. */
  fail(error: unknown): void {
    if (this.#finished || this.#ended !== undefined) return;
    this.#finished = true;
    this.#ended = "The stream failed";
    if (this.#sink) this.#sink.destroy(error instanceof Error ? error : new Error(String(error)));
    else this.#controller.error(error);
  }

  /** The stream is over: its signal aborts and any producer waiting for room goes on. */
  release(): void {
    this.#aborter.abort();
    this.#settleDrains();
  }

  #settleDrains() {
    for (const resolve of this.#drains) resolve();
    this.#drains = [];
  }

  /**
   * Hands the connection, which asked for data, the next frame as it is: never a copy (joining
   * small frames into chunks copied every byte a lagging client was sent, and that garbage was
   * most of what 100 stalled readers cost; bench/RESULTS.md).
   */
  #flush() {
    if (this.#finished) return;
    const sink = this.#sink;
    if (sink) {
      while (this.#pending.length > 0 && !sink.writableNeedDrain) {
        const next = this.#pending.shift()!;
        this.#pendingBytes -= next.length;
        sink.write(next);
      }
    } else {
      if (!this.#asking) return;
      const next = this.#pending.shift();
      if (next) {
        this.#asking = false;
        this.#pendingBytes -= next.length;
        this.#controller.enqueue(next);
      }
    }
    if (this.#pending.length > 0) return;
    this.#settleDrains();
    if (this.#closing) {
      this.#finished = true;
      if (sink) sink.end();
      else this.#controller.close();
    }
  }
}
