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
 * KEYS[1] = counting key; ARGV = limit, window in ms, a unique member suffix.
 */
export const SLIDING_WINDOW_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now, now .. ':' .. ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  count = count + 1
  allowed = 1
end
if allowed == 1 and count == 1 then return {1, 1, window} end -- this request is the oldest
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset = 0
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return {allowed, count, reset}
`;

/** Reads the script's `{allowed, count, resetMs}` reply. */
export function decisionFromReply(reply: unknown): WindowDecision {
  const [allowed, count, resetMs] = (reply as (number | string)[]).map(Number);
  return { allowed: allowed === 1, count, resetMs };
}

/**
 * The exact in-memory twin of {@link SLIDING_WINDOW_LUA}, for one process.
 *
 * @example
 * ```ts
 * const log = new SlidingWindowLog(() => Date.now());
 * log.hit("/api/x:alice", 10, 30_000).allowed; // true
 * ```
 */
export class SlidingWindowLog {
  readonly #entries = new Map<string, number[]>();
  readonly #now: () => number;
  #lastSweep = 0;

  constructor(now: () => number) {
    this.#now = now;
  }

  hit(key: string, limit: number, windowMs: number): WindowDecision {
    const now = this.#now();
    const cutoff = now - windowMs;
    this.#maybeSweep(now, windowMs);
    let times = this.#entries.get(key);
    if (times) {
      let expired = 0;
      while (expired < times.length && times[expired] <= cutoff) expired++;
      if (expired > 0) times.splice(0, expired);
    } else {
      times = [];
      this.#entries.set(key, times);
    }
    const allowed = times.length < limit;
    if (allowed) times.push(now);
    if (times.length === 0) this.#entries.delete(key);
    return { allowed, count: times.length, resetMs: times.length > 0 ? times[0] + windowMs - now : 0 };
  }

  /**
   * Keys no one uses any more would stay forever; Redis expires them, this sweeps them, at
   * most once per window so the cost per request stays constant.
   */
  #maybeSweep(now: number, windowMs: number) {
    if (now - this.#lastSweep < windowMs) return;
    this.#lastSweep = now;
    for (const [key, times] of this.#entries) {
      if (times[times.length - 1] <= now - windowMs) this.#entries.delete(key);
    }
  }
}
