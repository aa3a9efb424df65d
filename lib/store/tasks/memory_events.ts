import { eachEvent, type EventLog, type StoredEvent } from "../../task_model/ports.ts";

interface Channel {
  events: StoredEvent[];
  seq: number;
  readonly waiters: Set<() => void>;
}

/** The memory event log, with what the memory task store needs besides the port. */
export interface MemoryEventLog extends EventLog {
  /** Appends `data` as it is (callers pass a copy of their own), at once; returns its id. */
  appendOwned(name: string, kind: string, data: Record<string, unknown>, cap?: number): number;
  /** Removes a channel; its followers wake (and find nothing more). Returns how many events it held. */
  drop(name: string): number;
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

  const channel = (name: string) => {
    let c = channels.get(name);
    if (!c) channels.set(name, c = { events: [], seq: 0, waiters: new Set() });
    return c;
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
    return id;
  };
  const events: MemoryEventLog = {
    appendOwned: append,
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
        while (!signal.aborted) {
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
