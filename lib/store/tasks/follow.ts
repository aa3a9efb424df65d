/**
 * Followers of event channels over Redis on one pub/sub connection per process, however many
 * channels it follows. Every event is stored on its channel's stream and, in the same script,
 * published on the channel's notification channel (`<keys>n:<channel>`, in the stream's slot; on a Redis
 * Cluster with `SPUBLISH`, to the shard of that slot only; the message
 * `<stream id>\t<kind>\t<data JSON>`): a process subscribes to the channels it follows and
 * takes live events from the messages, reading the stream only to catch up — after a gap in
 * the ids (a message lost while the connection was down) or when it starts following.
 *
 * Measured against one `XREAD BLOCK` over many streams per connection (`bench/follow_mux_bench.ts`,
 * `bench/RESULTS.md`): redis-server spends about 10 µs more per event on the publish, where the
 * multi-stream XREAD cost it 300-750 µs per event at 1,000-10,000 channels (each read registers
 * every stream again), and the delivery latency is lower.
 *
 * Without subscriptions (Upstash over REST) the pool polls instead: one read of each followed
 * channel per interval, shared by all its followers.
 *
 * @module
 */
import type { EventWatcher, StoredEvent } from "../../task_model/ports.ts";
import { sleep } from "../../time/mod.ts";

/** One pub/sub connection (Redis over TCP). */
export interface Subscriber {
  subscribe(channel: string): Promise<void>;
  unsubscribe(channel: string): Promise<void>;
  /** `handler` gets every message of the channels subscribed to. */
  onMessage(handler: (channel: string, message: string) => void): void;
  /** `handler` runs when the connection is back after a drop: messages sent meanwhile were lost. */
  onReconnect(handler: () => void): void;
  close(): void;
}

/** How a {@link FollowerPool} learns of new events. */
export type LiveEvents =
  | {
    readonly kind: "subscribe";
    /** Opens the pub/sub connection (on the first follow). */
    readonly subscriber: () => Subscriber;
    /** The notification channel of a channel. */
    readonly notifications: (channel: string) => string;
  }
  /** Each followed channel read every `intervalMs` while nothing new came, once for all its followers. */
  | { readonly kind: "poll"; readonly intervalMs: number };

/** What a {@link FollowerPool} reads with. */
export interface FollowerPoolOptions {
  readonly live: LiveEvents;
  /** The channel's events above `after`. */
  readonly range: (channel: string, after: number) => Promise<StoredEvent[]>;
  /** The id of the channel's last event, 0 when it has none. */
  readonly last: (channel: string) => Promise<number>;
}

interface Follower {
  /** The feed's next events: one array for all the feed's followers. */
  push(events: readonly StoredEvent[]): void;
  /** The pool closed, or the store failed to answer a poll (`error`). */
  end(error?: unknown): void;
}

/**
 * How long a busy channel's events wait for others, in ms: the events that come within this
 * long after a hand-out's turn ended (or during it) go out together as the next batch; a quiet
 * channel's event goes out at once. One batch of k events costs each stream one write instead
 * of k. With a producer that waits for each append (a task in the same process), each event
 * came on its own and Node on Redis spent 1.4–2.0× the bare server's CPU per frame on one small
 * write per event per stream; 0.9–1.2× with this (`bench/RESULTS.md`).
 */
export const COALESCE_MS = 1;

/**
 * The longest a busy channel's events wait for others, in ms. After a hand-out whose turn took
 * longer than {@link COALESCE_MS} (many streams to write to, or a busy process: the turn lasts
 * until the event loop comes back to it), the next waits as long as that turn took, up to this:
 * hand-outs then take at most about half of the process's time, and a producer that waits for
 * each append gets the other half to catch up, so its events go out several a batch. With 1 ms,
 * such a producer fell behind the fan-out and each hand-out carried one event: Node on Redis
 * made 139,000–148,000 of 200,000 frames/s at 6.8–7.2 µs a frame; all of them at 2.9–3.1 µs
 * with this (`bench/RESULTS.md`).
 */
const MAX_COALESCE_MS = 10;

/** A followed channel: its followers, and the id of the last event handed to them. */
class Feed {
  readonly followers = new Set<Follower>();
  /** Resolves once subscribed and the position is known. */
  ready!: Promise<void>;
  started = false;
  /** The id of the last event taken in (handed out, or waiting to be). */
  position = 0;
  reading = false;
  /** Messages came while the feed could not take them: read the stream after them. */
  behind = false;
  /** Events taken in that wait for the next hand-out. */
  #waiting: StoredEvent[] = [];
  /**
   * Runs once the last hand-out's turn is over (its streams' writes done): a timer of its own,
   * not a measure inside the turn, as Node's timers count from the turn's start.
   */
  #turn: ReturnType<typeof setTimeout> | undefined;
  /** When the last hand-out's turn ended (`performance.now()`). */
  #turnEnded = -Infinity;
  /** How long events that come after the last turn wait for others: about as long as that turn took. */
  #window = COALESCE_MS;
  /** The hand-out of the events that came within the window after the last turn ended. */
  #flush: ReturnType<typeof setTimeout> | undefined;
  /** Aborts when the feed stops: its poll's wait ends. */
  readonly #stopped = new AbortController();
  constructor(readonly channel: string, readonly name: string) {}

  get stopped(): AbortSignal {
    return this.#stopped.signal;
  }

  push(events: readonly StoredEvent[]) {
    this.position = events[events.length - 1].id;
    if (this.#turn === undefined && this.#flush === undefined) {
      const wait = this.#turnEnded + this.#window - performance.now();
      if (wait <= 0) return this.#handOut(events);
      // Set here, outside any timer's callback: a chain of timers each set by the last gets 4 ms at least on Deno.
      this.#flush = setTimeout(() => this.#handOutWaiting(), wait);
    }
    for (const event of events) this.#waiting.push(event);
  }

  /** No more hand-outs (the feed was dropped or the pool closed). */
  stop() {
    this.#stopped.abort();
    clearTimeout(this.#turn);
    clearTimeout(this.#flush);
    this.#turn = this.#flush = undefined;
    this.#waiting = [];
  }

  #handOut(events: readonly StoredEvent[]) {
    const started = performance.now();
    for (const follower of this.followers) follower.push(events);
    this.#turn = setTimeout(() => {
      this.#turn = undefined;
      this.#turnEnded = performance.now();
      this.#window = Math.min(MAX_COALESCE_MS, Math.max(COALESCE_MS, this.#turnEnded - started));
      if (this.#waiting.length > 0) this.#handOutWaiting(); // they came during the turn: waited enough
    }, 0);
  }

  #handOutWaiting() {
    this.#flush = undefined;
    const events = this.#waiting;
    this.#waiting = [];
    this.#handOut(events);
  }
}

/**
 * Follows channels for one process: every follower of a channel shares its feed, and every
 * feed shares the process's one subscriber connection (or, polling, the feed's one poll). A
 * follower attaches first, then reads the history, then takes live events above the last id it
 * yielded: the feed subscribed before it learnt its position, so nothing falls between the two.
 */
export class FollowerPool {
  readonly #options: FollowerPoolOptions;
  readonly #feeds = new Map<string, Feed>();
  readonly #byName = new Map<string, Feed>();
  #subscriber?: Subscriber;
  #closed = false;

  constructor(options: FollowerPoolOptions) {
    this.#options = options;
  }

  /** `EventLog.followBatches` on the pool. */
  async *follow(channel: string, after: number, signal: AbortSignal): AsyncGenerator<StoredEvent[]> {
    let queue: StoredEvent[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    let failure: { error: unknown } | undefined;
    const follower: Follower = {
      push(events) {
        for (const event of events) queue.push(event); // amortised O(1): a lagging follower's queue is not copied
        wake?.();
      },
      end(error) {
        ended = true;
        if (error !== undefined) failure = { error };
        wake?.();
      },
    };
    const onAbort = () => wake?.();
    signal.addEventListener("abort", onAbort);
    const feed = this.#feedOf(channel);
    feed.followers.add(follower);
    try {
      await feed.ready;
      let last = after;
      const history = await this.#options.range(channel, after);
      if (history.length > 0 && !signal.aborted) {
        last = history[history.length - 1].id;
        yield history;
      }
      while (!signal.aborted && !ended && !this.#closed) {
        if (queue.length === 0) {
          await new Promise<void>((resolve) => wake = resolve);
          wake = undefined;
          continue;
        }
        const batch = queue.filter((e) => e.id > last); // the history may already hold the first live ones
        queue = [];
        if (batch.length === 0) continue;
        last = batch[batch.length - 1].id;
        yield batch;
      }
      if (failure && !signal.aborted) throw failure.error;
    } finally {
      signal.removeEventListener("abort", onAbort);
      feed.followers.delete(follower);
      if (feed.followers.size === 0) this.#drop(feed);
    }
  }

  /**
   * `EventLog.watch` on the pool: the watcher's history, then each live batch of the feed as it
   * is, the same array for every watcher of the channel (no queue, promise or copy per watcher).
   */
  watch(channel: string, after: number, signal: AbortSignal, watcher: EventWatcher): void {
    if (signal.aborted) return;
    if (this.#closed) return watcher.end();
    let last = after;
    /** Told its end, or its signal aborted (a flag: Node's `signal.aborted` costs a brand check per batch). */
    let ended = false;
    /** Live events that came while the history was read; undefined once it was told. */
    let early: StoredEvent[] | undefined = [];
    const tell = (events: readonly StoredEvent[]) => {
      const end = events[events.length - 1].id;
      if (ended || end <= last) return;
      watcher.take(events[0].id > last ? events : events.filter((e) => e.id > last)); // the history may hold the first ones
      last = end;
    };
    const feed = this.#feedOf(channel);
    const follower: Follower = {
      push(events) {
        if (!early) return tell(events);
        for (const event of events) early.push(event);
      },
      end: (error) => stop(error),
    };
    const leave = () => {
      ended = true;
      feed.followers.delete(follower);
      if (feed.followers.size === 0) this.#drop(feed);
    };
    const stop = (error?: unknown) => {
      if (ended) return;
      signal.removeEventListener("abort", leave);
      leave();
      watcher.end(error);
    };
    feed.followers.add(follower);
    signal.addEventListener("abort", leave, { once: true });
    feed.ready.then(() => this.#options.range(channel, after)).then((history) => {
      const live = early!;
      early = undefined;
      if (history.length > 0) tell(history);
      if (live.length > 0) tell(live);
    }, stop);
  }

  /** Ends every follower and closes the connection. */
  close(): void {
    this.#closed = true;
    for (const feed of this.#feeds.values()) {
      feed.stop();
      for (const follower of [...feed.followers]) follower.end();
    }
    this.#feeds.clear();
    this.#byName.clear();
    this.#subscriber?.close();
    this.#subscriber = undefined;
  }

  #connection(live: LiveEvents & { kind: "subscribe" }): Subscriber {
    if (this.#subscriber) return this.#subscriber;
    const subscriber = this.#subscriber = live.subscriber();
    subscriber.onMessage((name, message) => this.#message(name, message));
    subscriber.onReconnect(() => {
      for (const feed of this.#feeds.values()) if (feed.started) void this.#catchUp(feed);
    });
    return subscriber;
  }

  #feedOf(channel: string): Feed {
    const existing = this.#feeds.get(channel);
    if (existing) return existing;
    const live = this.#options.live;
    const feed = new Feed(channel, live.kind === "subscribe" ? live.notifications(channel) : channel);
    this.#feeds.set(channel, feed);
    this.#byName.set(feed.name, feed);
    // Subscribed first, then the position: an event after it comes as a message.
    const subscribed = live.kind === "subscribe" ? this.#connection(live).subscribe(feed.name) : Promise.resolve();
    feed.ready = subscribed
      .then(() => this.#options.last(channel))
      .then((position) => {
        feed.position = position;
        feed.started = true;
        if (live.kind === "poll") void this.#poll(feed, live.intervalMs);
        else if (feed.behind) void this.#catchUp(feed);
      });
    // A store that did not answer: the next follower of the channel tries again.
    feed.ready.catch(() => this.#drop(feed));
    return feed;
  }

  #message(name: string, message: string) {
    const feed = this.#byName.get(name);
    if (!feed) return; // nobody follows it any more
    if (!feed.started || feed.reading) {
      feed.behind = true;
      return;
    }
    const event = parse(message);
    if (!event || event.id <= feed.position) return; // read already, or not ours to read
    if (event.id !== feed.position + 1) return void this.#catchUp(feed); // a gap: messages were lost
    feed.push([event]);
  }

  /** Reads the channel after the feed's position until nothing more came meanwhile. */
  async #catchUp(feed: Feed) {
    if (feed.reading) {
      feed.behind = true;
      return;
    }
    feed.reading = true;
    try {
      do {
        feed.behind = false;
        let events: StoredEvent[];
        try {
          events = await this.#options.range(feed.channel, feed.position);
        } catch {
          if (this.#feeds.get(feed.channel) !== feed) return;
          feed.behind = true;
          await new Promise((r) => setTimeout(r, 200)); // the store did not answer: try again
          continue;
        }
        if (this.#feeds.get(feed.channel) !== feed) return; // dropped meanwhile
        if (events.length > 0) feed.push(events);
      } while (feed.behind);
    } finally {
      feed.reading = false;
    }
  }

  /**
   * Reads the channel after the feed's position every `intervalMs` while nothing new comes, until
   * the feed is dropped; a read the store did not answer ends the feed's followers with its error.
   */
  async #poll(feed: Feed, intervalMs: number) {
    while (this.#feeds.get(feed.channel) === feed) {
      let events: StoredEvent[];
      try {
        events = await this.#options.range(feed.channel, feed.position);
      } catch (error) {
        if (this.#feeds.get(feed.channel) !== feed) return;
        this.#drop(feed);
        for (const follower of [...feed.followers]) follower.end(error);
        return;
      }
      if (this.#feeds.get(feed.channel) !== feed) return; // dropped meanwhile
      if (events.length > 0) feed.push(events);
      else await sleep(intervalMs, feed.stopped).catch(() => {});
    }
  }

  #drop(feed: Feed) {
    if (this.#feeds.get(feed.channel) !== feed) return;
    feed.stop();
    this.#feeds.delete(feed.channel);
    this.#byName.delete(feed.name);
    this.#subscriber?.unsubscribe(feed.name).catch(() => {}); // gone with the connection otherwise
    if (this.#feeds.size === 0) {
      this.#subscriber?.close(); // no connection while nothing is followed
      this.#subscriber = undefined;
    }
  }
}

/** An event from a message `<stream id 0-n>\t<kind>\t<data JSON>`; undefined when it is not one. */
function parse(message: string): StoredEvent | undefined {
  const a = message.indexOf("\t");
  const b = message.indexOf("\t", a + 1);
  if (a < 0 || b < 0) return undefined;
  const id = Number(message.slice(message.indexOf("-") + 1, a));
  try {
    return Number.isInteger(id)
      ? { id, kind: message.slice(a + 1, b), data: JSON.parse(message.slice(b + 1)) }
      : undefined;
  } catch {
    return undefined;
  }
}
