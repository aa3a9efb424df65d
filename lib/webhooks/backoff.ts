/**
 * When to try a failed webhook delivery again: exponential backoff with full jitter, within a window after which the
 * delivery is given up.
 *
 * @module
 */

/** How long deliveries are retried after their first attempt by default: 24 hours. */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Tuning of `retryDelayMs`. */
export interface BackoffOptions {
  /** The most the wait after the first attempt can be (1 s); each further attempt doubles it. */
  baseMs?: number;
  /** The most any wait can be (1 hour). */
  capMs?: number;
}

/**
 * How long to wait after failed attempt number `attempt` (1 for the first): a random time between 0 and
 * `min(capMs, baseMs × 2^(attempt − 1))`. The whole range is random ("full jitter") so that receivers that failed
 * together are not all retried together.
 */
export function retryDelayMs(
  attempt: number,
  random: () => number = Math.random,
  { baseMs = 1000, capMs = 3_600_000 }: BackoffOptions = {},
): number {
  // The exponent is bounded so that a very high attempt number cannot overflow to Infinity × 0.
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(Math.max(attempt, 1) - 1, 64));
  return Math.floor(random() * ceiling);
}

/** The time (epoch ms) after which a delivery first attempted at `firstAttemptAt` is no longer retried. */
export function giveUpAt(firstAttemptAt: number, windowMs: number = RETRY_WINDOW_MS): number {
  return firstAttemptAt + windowMs;
}

/** Whether a delivery first attempted at `firstAttemptAt` may still be retried at `now` (both epoch ms). */
export function shouldRetry(firstAttemptAt: number, now: number, windowMs: number = RETRY_WINDOW_MS): boolean {
  return now < giveUpAt(firstAttemptAt, windowMs);
}
