/** The outcome of one request against a sliding-window log. */
export interface WindowDecision {
  readonly allowed: boolean;
  /** Requests recorded in the window, this one included when allowed. */
  readonly count: number;
  /** Milliseconds until the oldest recorded request leaves the window (0 when none). */
  readonly resetMs: number;
}

/**
 * The sliding-window log as one Redis script: drop entries older than the window, count, and
 * when under the limit record this request (millisecond score, unique member) and refresh the
 * key's lifetime — atomically, on the server's clock (`TIME`), so several processes agree.
 * Rejected requests are not recorded. Returns `{allowed, count, resetMs}`.
 *
 * Each `redis.call()` costs ~4 µs of the script's time beyond the command itself, so it reads
 * the oldest entry first: the trim runs only when that entry has left the window (then the
 * oldest is read again), an empty key needs no count, and a refusal writes nothing. At 10 then
 * 10 refused per caller that is ~4 calls per decision instead of 5 (`TIME`, `ZRANGE`, `ZCARD`,
 * and `ZADD` + `PEXPIRE` when allowed).
 *
 * KEYS[1] = counting key; ARGV = limit, window in ms, a unique member suffix.
 */
export const SLIDING_WINDOW_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if oldest[2] and tonumber(oldest[2]) <= now - window then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
  oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
end
if not oldest[2] then -- nothing in the window: this request is the oldest
  if limit < 1 then return {0, 0, 0} end
  redis.call('ZADD', KEYS[1], now, now .. ':' .. ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, 1, window}
end
local count = redis.call('ZCARD', KEYS[1])
local first = tonumber(oldest[2])
if count < limit then
  redis.call('ZADD', KEYS[1], now, now .. ':' .. ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  if now < first then first = now end -- the server's clock went back: this request is the oldest
  return {1, count + 1, first + window - now}
end
return {0, count, first + window - now}
`;

/** Reads the script's `{allowed, count, resetMs}` reply. */
export function decisionFromReply(reply: unknown): WindowDecision {
  const [allowed, count, resetMs] = (reply as (number | string)[]).map(Number);
  return { allowed: allowed === 1, count, resetMs };
}

/**
 * The exact in-memory twin of {@link SLIDING_WINDOW_LUA}, for one process.
 *
 * Memory: a tracked caller costs its key (path and identity), a map entry, a place in the
 * expiry queue and one number per request in its window: measured on V8, about 120 bytes plus
 * the key at one request and 260 plus the key at ten. Expiry works like a timer queue: each
 * caller waits in a queue ordered by when it is due; a caller that comes due with a request
 * still in its window queues again behind, due when that request leaves. So a caller is
 * dropped at most one window after its last request left (at once when nothing newer is
 * queued), each hit drops up to 2,048 callers, and after a window without
 * hits the next one drops them all without a walk. No hit does more than bounded work (the
 * full walk this replaces took 75 ms for 200,000 callers), and nothing runs between hits.
 *
 * @example
 * ```ts
 * const log = new SlidingWindowLog(() => Date.now());
 * log.hit("/api/x:alice", 10, 30_000).allowed; // true
 * ```
 */
export class SlidingWindowLog {
  #entries = new Map<string, number[]>();
  /** Each tracked caller once, from `#head` on, with the time it was queued for. */
  #queue: string[] = [];
  #queueTimes: number[] = [];
  #head = 0;
  /** When the latest request was recorded. */
  #latest = -Infinity;
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** How many callers are tracked (including stale ones not dropped yet). */
  get size(): number {
    return this.#entries.size;
  }

  hit(key: string, limit: number, windowMs: number): WindowDecision {
    const now = this.#now();
    const cutoff = now - windowMs;
    this.#expire(cutoff);
    let times = this.#entries.get(key);
    if (times) {
      let expired = 0;
      while (expired < times.length && times[expired] <= cutoff) expired++;
      if (expired > 0) times.splice(0, expired);
    }
    const count = times?.length ?? 0;
    const allowed = count < limit;
    if (allowed) {
      this.#latest = now;
      if (times) times.push(now);
      else {
        this.#entries.set(key, times = [now]); // a literal sized to one, not a grown array
        this.#queue.push(key);
        this.#queueTimes.push(now);
      }
    }
    const size = times?.length ?? 0;
    return { allowed, count: size, resetMs: size > 0 ? times![0] + windowMs - now : 0 };
  }

  /** Drops the callers that came due, or queues them again when they made a request since. */
  #expire(cutoff: number) {
    if (this.#latest <= cutoff) {
      if (this.#entries.size > 0) { // every request has left the window: drop everything without a walk
        this.#entries = new Map();
        this.#queue = [];
        this.#queueTimes = [];
        this.#head = 0;
      }
      return;
    }
    const queue = this.#queue, due = this.#queueTimes;
    let head = this.#head;
    for (const end = Math.min(queue.length, head + EXPIRE_PER_HIT); head < end && due[head] <= cutoff; head++) {
      const key = queue[head];
      const times = this.#entries.get(key)!;
      const latest = times[times.length - 1];
      if (latest > cutoff) {
        queue.push(key);
        due.push(latest);
      } else {
        this.#entries.delete(key);
      }
    }
    this.#head = head;
    if (head >= 1024 && head * 2 >= queue.length) { // give back the consumed half: amortized O(1)
      this.#queue = queue.slice(head);
      this.#queueTimes = due.slice(head);
      this.#head = 0;
    }
  }
}

/** At most this many callers are dropped or queued again per hit (well under a millisecond). */
const EXPIRE_PER_HIT = 2_048;
