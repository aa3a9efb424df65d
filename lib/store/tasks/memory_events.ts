import { eachEvent, type EventLog, type EventWatcher, type StoredEvent } from "../../task_model/ports.ts";

interface Channel {
  events: StoredEvent[];
  seq: number;
  readonly waiters: Set<() => void>;
  /** The id up to which the channel's watchers have been told. */
  told: number;
}

/** A watcher of a channel, and the last id it was told. */
interface Watch {
  readonly watcher: EventWatcher;
  last: number;
  /** Told its history: from then on it takes its share of each hand-out. */
  started: boolean;
}

/**
 * The watchers of a channel, by name (a dropped channel's watchers stay for the next one of
 * the name), and whether a hand-out is due: appends made in one turn reach them as one batch.
 */
interface Watching {
  readonly watches: Set<Watch>;
  due: boolean;
}

/** The memory event log, with what the memory task store needs besides the port. */
export interface MemoryEventLog extends EventLog {
  /** Appends `data` as it is (callers pass a copy of their own), at once; returns its id. */
  appendOwned(name: string, kind: string, data: Record<string, unknown>, cap?: number): number;
  /** Removes a channel; its followers wake (and find nothing more). Returns how many events it held. */
  drop(name: string): number;
  /** Ends every watcher (told `end()`) and follower, and releases them; later ones end at once. */
  close(): void;
}

/**
 * The `events` port in memory: channels with per-channel ids; followers wake on append.
 *
 * @example
 * ```ts
 * const events = createMemoryEventLog();
 * await events.append("task:t1", "token", { task_id: "t1", message: "Hi" }); // 1
 * ```
 */
export function createMemoryEventLog(): MemoryEventLog {
  const channels = new Map<string, Channel>();
  const watching = new Map<string, Watching>();
  let closed = false;

  const channel = (name: string) => {
    let c = channels.get(name);
    if (!c) channels.set(name, c = { events: [], seq: 0, waiters: new Set(), told: 0 });
    return c;
  };
  /** Hands what the channel got since the last hand-out to its watchers: one array for all. */
  const tell = (name: string, w: Watching) => {
    w.due = false;
    const c = channels.get(name);
    if (!c || c.told >= c.seq || closed) return;
    const batch = eventsAfter(c, c.told, Infinity);
    c.told = c.seq;
    if (batch.length === 0) return;
    const first = batch[0].id, last = batch[batch.length - 1].id;
    for (const watch of w.watches) {
      if (!watch.started || watch.last >= last) continue; // its history tells it (again)
      watch.watcher.take(watch.last < first ? batch : batch.filter((e) => e.id > watch.last));
      watch.last = last;
    }
  };
  /** Appends `data` as it is: callers pass a copy of their own. */
  const append = (name: string, kind: string, data: Record<string, unknown>, cap = 0) => {
    const c = channel(name);
    const id = ++c.seq;
    c.events.push({ id, kind, data });
    // Trimmed in batches, like MAXLEN ~ on Redis: one splice per cap/16 appends.
    if (cap > 0 && c.events.length > cap + (cap >> 4)) c.events.splice(0, c.events.length - cap);
    for (const wake of c.waiters) wake();
    c.waiters.clear();
    const w = watching.get(name);
    if (w && !w.due) {
      w.due = true;
      queueMicrotask(() => tell(name, w));
    }
    return id;
  };
  const events: MemoryEventLog = {
    watch(name, after, signal, watcher) {
      if (signal.aborted) return;
      if (closed) return watcher.end();
      let w = watching.get(name);
      if (!w) watching.set(name, w = { watches: new Set(), due: false });
      const watch: Watch = { watcher, last: after, started: false };
      const watches = w.watches;
      watches.add(watch);
      signal.addEventListener("abort", () => {
        watches.delete(watch);
        if (watches.size === 0 && watching.get(name)?.watches === watches) watching.delete(name);
      }, { once: true });
      queueMicrotask(() => { // its history, then it takes its share of each hand-out
        watch.started = true;
        const c = channels.get(name);
        if (signal.aborted || closed || !c) return;
        const history = eventsAfter(c, watch.last, Infinity);
        if (history.length === 0) return;
        watch.last = history[history.length - 1].id;
        watcher.take(history);
      });
    },
    appendOwned: append,
    close() {
      closed = true;
      const ending = [...watching.values()].flatMap((w) => [...w.watches]);
      for (const w of watching.values()) w.watches.clear();
      watching.clear();
      for (const watch of ending) watch.watcher.end();
      for (const c of channels.values()) {
        for (const wake of c.waiters) wake();
        c.waiters.clear();
      }
    },
    drop(name) {
      const c = channels.get(name);
      channels.delete(name);
      for (const wake of c?.waiters ?? []) wake();
      return c?.events.length ?? 0;
    },
    append: (name, kind, data, maxLength) => Promise.resolve(append(name, kind, structuredClone(data), maxLength)),
    last: (name) => Promise.resolve(channels.get(name)?.seq ?? 0),
    range(name, after, limit = Infinity) {
      const c = channels.get(name);
      return Promise.resolve(c ? eventsAfter(c, after, limit) : []);
    },
    follow: (name, after, signal) => eachEvent(events.followBatches(name, after, signal)),
    async *followBatches(name, after, signal) {
      let last = after;
      try {
        while (!signal.aborted && !closed) {
          const c = channel(name);
          const batch = eventsAfter(c, last, Infinity);
          if (batch.length === 0) {
            await new Promise<void>((resolve) => {
              const wake = () => {
                signal.removeEventListener("abort", wake);
                c.waiters.delete(wake);
                resolve();
              };
              c.waiters.add(wake);
              signal.addEventListener("abort", wake, { once: true });
            });
            continue;
          }
          last = batch[batch.length - 1].id;
          yield batch;
        }
      } finally {
        // A channel made only to wait on (a session never used, a task removed meanwhile) goes with its last follower.
        const c = channels.get(name);
        if (c && c.seq === 0 && c.waiters.size === 0) channels.delete(name);
      }
    },
  };
  return events;
}

/** The events above `after`, found by binary search (ids only grow). */
function eventsAfter(c: Channel, after: number, limit: number): StoredEvent[] {
  let lo = 0, hi = c.events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (c.events[mid].id <= after) lo = mid + 1;
    else hi = mid;
  }
  return c.events.slice(lo, Number.isFinite(limit) ? lo + limit : undefined);
}
