import { isTransient } from "./retry.ts";
import * as time from "../time/mod.ts";

/** How `poll` paces itself, when it gives up, and what it tells the caller. */
export interface PollOptions {
  readonly signal?: AbortSignal;
  /**
   * The shortest pause between polls. Default 1 s. Each pause is the larger of this and a
   * quarter of the time waited so far, up to `maxIntervalMs`: an operation is noticed at most a
   * quarter of its duration late, and a short one within one interval.
   */
  readonly intervalMs?: number;
  /** The longest pause (unless `intervalMs` is longer). Default 5 s. */
  readonly maxIntervalMs?: number;
  /** Give up after this long. Default 600 s. */
  readonly timeoutMs?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** The pause before the next poll, after `elapsedMs` of waiting. */
export function pollInterval(elapsedMs: number, intervalMs: number, maxIntervalMs: number): number {
  return Math.max(intervalMs, Math.min(elapsedMs / 4, maxIntervalMs));
}

/** What one poll of `poll` is given and returns. */
export interface PollStep<T> {
  /** Reads the operation once; resolves with the result when it is over, undefined while it runs. */
  read(signal: AbortSignal, elapsedMs: number): Promise<T | undefined>;
  /**
   * A read failed: return to poll on (the default for `isTransient` failures), throw to stop.
   * The place to tolerate a 404 while a new operation is not visible yet.
   */
  failed?(error: unknown, elapsedMs: number): void;
  /** The error when `timeoutMs` (given) passes first. */
  timedOut(timeoutMs: number): Error;
}

/**
 * Polls an operation until `step.read` finds it over, with growing pauses (see
 * `PollOptions.intervalMs`). A read that fails for a passing reason (`isTransient`) is tried
 * again at the next interval; any other failure ends the wait. A read that hangs cannot carry
 * the wait past `timeoutMs`. An aborted `signal` rejects with its reason.
 *
 * @example
 * ```ts
 * import { poll } from "./poll.ts";
 * let reads = 0;
 * const done = await poll({
 *   read: () => Promise.resolve(++reads === 3 ? "done" : undefined),
 *   timedOut: () => new Error("too slow"),
 * }, { intervalMs: 10 });
 * ```
 */
export async function poll<T>(step: PollStep<T>, options: PollOptions = {}): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? time.sleep;
  const timeoutMs = options.timeoutMs ?? 600_000;
  const intervalMs = options.intervalMs ?? 1_000;
  const maxIntervalMs = options.maxIntervalMs ?? 5_000;
  const started = now();
  for (;;) {
    options.signal?.throwIfAborted();
    // Node's AbortSignal.timeout takes whole milliseconds only.
    const deadline = AbortSignal.timeout(Math.max(1, Math.ceil(timeoutMs - (now() - started))));
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    try {
      const result = await step.read(signal, now() - started);
      if (result !== undefined) return result;
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (deadline.aborted) throw step.timedOut(timeoutMs);
      if (step.failed) step.failed(error, now() - started);
      else if (!isTransient(error)) throw error;
    }
    const elapsed = now() - started;
    const left = timeoutMs - elapsed;
    if (left <= 0) throw step.timedOut(timeoutMs);
    await sleep(Math.min(pollInterval(elapsed, intervalMs, maxIntervalMs), left), options.signal);
  }
}
