/**
 * Followers of event channels over Redis streams, on a fixed set of blocking connections:
 * however many channels a process follows, it reads them all with at most `readers`
 * connections, each blocked in one `XREAD BLOCK` over its share of the channels' streams.
 *
 * @module
 */
import type { StoredEvent } from "./port.ts";

/**
 * One blocking connection (Redis over TCP): `XREAD COUNT <count> BLOCK <blockMs> STREAMS
 * <keys…> <ids…>`, resolving with XREAD's reply (null on timeout).
 */
export interface StreamReader {
  read(keys: readonly string[], ids: readonly string[], blockMs: number, count: number): Promise<unknown>;
  /**
   * Ends a read blocked on this connection at once, its reply then null (`CLIENT UNBLOCK` from
   * another connection). False when no read was blocked (not yet, or no longer) or it cannot.
   */
  interrupt(): Promise<boolean>;
  close(): void;
}

/** What a {@link FollowerPool} reads with. */
export interface FollowerPoolOptions {
  /** Opens a blocking connection. */
  readonly reader: () => StreamReader;
  /** Blocking connections at most (channels are spread over them). */
  readonly readers: number;
  /** How long one XREAD blocks before it is sent again. */
  readonly blockMs: number;
  /** The stream key of a channel. */
  readonly key: (channel: string) => string;
  /** The channel's events above `after`. */
  readonly range: (channel: string, after: number) => Promise<StoredEvent[]>;
  /** The id of the channel's last event, 0 when it has none. */
  readonly last: (channel: string) => Promise<number>;
  /** Events from the entries of one stream in an XREAD reply. */
  readonly toEvents: (entries: unknown) => StoredEvent[];
}

/** Entries taken from one stream per XREAD at most: a channel far ahead is read in several. */
const READ_COUNT = 1_000;

interface Follower {
  push(events: StoredEvent[]): void;
}

/** A followed channel: its followers, and the stream id its reader continues after. */
class Feed {
  readonly followers = new Set<Follower>();
  /** Resolves once the position is known and a reader reads the channel. */
  ready!: Promise<void>;
  lastId = "0-0";
  shard?: Shard;
  constructor(readonly channel: string, readonly key: string) {}
}

/**
 * Follows channels for one process. Each followed channel (a {@link Feed}) is read by one of at
 * most `readers` connections (shards), whichever had fewest channels when it was first
 * followed; every follower of a channel shares its feed. A follower attaches first, then reads
 * the history, then takes live events above the last id it yielded: the feed started after a
 * known position, so nothing falls between the two. A connection is opened for the first
 * channel given to it and closed when it has none left.
 */
export class FollowerPool {
  readonly #options: FollowerPoolOptions;
  readonly #feeds = new Map<string, Feed>();
  readonly #shards: Shard[] = [];
  #closed = false;

  constructor(options: FollowerPoolOptions) {
    this.#options = options;
  }

  /** Open blocking connections (for tests and benchmarks). */
  get connections(): number {
    return this.#shards.filter((s) => s.connected).length;
  }

  /** `EventLog.followBatches` on the pool. */
  async *follow(channel: string, after: number, signal: AbortSignal): AsyncGenerator<StoredEvent[]> {
    let queue: StoredEvent[] = [];
    let wake: (() => void) | undefined;
    const follower: Follower = {
      push(events) {
        for (const event of events) queue.push(event); // amortised O(1): a lagging follower's queue is not copied
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
      while (!signal.aborted && !this.#closed) {
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
    } finally {
      signal.removeEventListener("abort", onAbort);
      feed.followers.delete(follower);
      if (feed.followers.size === 0) this.#drop(feed);
    }
  }

  /** Ends every follower and closes the connections. */
  close(): void {
    this.#closed = true;
    for (const feed of this.#feeds.values()) for (const follower of feed.followers) follower.push([]);
    this.#feeds.clear();
    for (const shard of this.#shards) shard.close();
  }

  #feedOf(channel: string): Feed {
    let feed = this.#feeds.get(channel);
    if (feed) return feed;
    const created = feed = new Feed(channel, this.#options.key(channel));
    this.#feeds.set(channel, created);
    created.ready = this.#options.last(channel).then((last) => {
      created.lastId = `0-${last}`;
      if (this.#feeds.get(channel) !== created) return; // everyone left meanwhile
      const shard = created.shard = this.#leastLoaded();
      shard.add(created);
    });
    // A store that did not answer: the next follower of the channel tries again.
    created.ready.catch(() => this.#drop(created));
    return created;
  }

  #leastLoaded(): Shard {
    const idle = this.#shards.find((s) => s.size === 0);
    if (idle) return idle;
    if (this.#shards.length < this.#options.readers) {
      const shard = new Shard(this.#options);
      this.#shards.push(shard);
      return shard;
    }
    return this.#shards.reduce((a, b) => b.size < a.size ? b : a);
  }

  #drop(feed: Feed) {
    if (this.#feeds.get(feed.channel) === feed) this.#feeds.delete(feed.channel);
    feed.shard?.remove(feed);
    feed.shard = undefined;
  }
}

/** One blocking connection and the feeds it reads. */
class Shard {
  readonly #options: FollowerPoolOptions;
  readonly #feeds = new Map<string, Feed>();
  #reader?: StreamReader;
  #running = false;
  #reading = false;
  /** A feed joined after the read in flight was sent: that read must end early. */
  #changed = false;
  #interrupting = false;
  #closed = false;

  constructor(options: FollowerPoolOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#feeds.size;
  }

  get connected(): boolean {
    return this.#reader !== undefined;
  }

  add(feed: Feed) {
    this.#feeds.set(feed.key, feed);
    this.#changed = true;
    if (!this.#running) void this.#loop();
    else if (this.#reading) this.#interrupt();
  }

  remove(feed: Feed) {
    if (this.#feeds.get(feed.key) === feed) this.#feeds.delete(feed.key);
    if (this.#feeds.size > 0) return; // a channel nobody follows drops out of the next read
    this.#reader?.close(); // ends the read in flight: the loop stops
    this.#reader = undefined;
  }

  close() {
    this.#closed = true;
    this.#feeds.clear();
    this.#reader?.close();
    this.#reader = undefined;
  }

  async #loop() {
    this.#running = true;
    try {
      while (this.#feeds.size > 0 && !this.#closed) {
        const reader = this.#reader ??= this.#options.reader();
        const feeds = [...this.#feeds.values()];
        this.#changed = false;
        this.#reading = true;
        let reply: [string, unknown][] | null;
        try {
          reply = await reader.read(
            feeds.map((f) => f.key),
            feeds.map((f) => f.lastId),
            this.#options.blockMs,
            READ_COUNT,
          ) as [string, unknown][] | null;
        } catch {
          this.#reading = false;
          if (this.#feeds.size === 0 || this.#closed) break;
          if (reader !== this.#reader) continue; // closed here (its channels left), and a channel came since
          await sleep(200); // the connection is down: it reconnects by itself
          continue;
        }
        this.#reading = false;
        for (const [key, entries] of reply ?? []) {
          const feed = this.#feeds.get(String(key));
          if (!feed) continue; // nobody follows it any more
          const events = this.#options.toEvents(entries);
          if (events.length === 0) continue;
          feed.lastId = `0-${events[events.length - 1].id}`;
          for (const follower of feed.followers) follower.push(events);
        }
      }
    } finally {
      this.#running = false;
      this.#reading = false;
      if (this.#feeds.size === 0 || this.#closed) {
        this.#reader?.close();
        this.#reader = undefined;
      } else void this.#loop(); // a feed joined as the loop was ending
    }
  }

  /**
   * Ends the read in flight so that the next one includes the new feed. The unblock may reach
   * Redis before the read does (two connections): then it is sent again until the read ends.
   */
  #interrupt() {
    if (this.#interrupting) return;
    this.#interrupting = true;
    void (async () => {
      try {
        for (let attempt = 0; this.#reading && this.#changed && !this.#closed; attempt++) {
          const interrupted = await (this.#reader?.interrupt() ?? Promise.resolve(false)).catch(() => false);
          if (interrupted) return;
          await sleep(Math.min(200, 2 ** attempt));
        }
      } finally {
        this.#interrupting = false;
      }
    })();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
