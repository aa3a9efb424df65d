import { StoreUnavailableError } from "../store/mod.ts";
import type { StoreOutage } from "../store/mod.ts";
import { sleep } from "../time/mod.ts";

/** How the runner repeats a store call that failed for a reason that may pass. */
export interface StoreRetryPolicy {
  /** How long one call is tried for, from its first attempt; then its last error is thrown. */
  readonly budgetMs: number;
  /** The first pause; each one after doubles, up to `maxDelayMs`, with jitter. Default 50 ms. */
  readonly baseDelayMs?: number;
  /** Default 1 s: a store back from an outage is noticed within about a second. */
  readonly maxDelayMs?: number;
}

// Replies of a server that is starting, failing over or busy: they pass without anything changed here.
const TRANSIENT_REPLIES =
  /refused the command: (ERR )?(LOADING|BUSY|TRYAGAIN|READONLY|MASTERDOWN|CLUSTERDOWN|NOREPLICAS)\b/;

/**
 * Whether a store failure may pass if the call is made again: the store did not answer in time,
 * could not be reached, or refused with a reply of a server that is starting, failing over or
 * busy. Any other refusal (a script error, out of memory) is not repeated.
 *
 * @example
 * ```ts
 * import { StoreUnavailableError } from "../store/mod.ts";
 * isTransientStoreError(new StoreUnavailableError("Redis at 127.0.0.1:6379 did not answer within 1000 ms")); // true
 * isTransientStoreError(new Error("bug")); // false
 * ```
 */
export function isTransientStoreError(error: unknown): boolean {
  if (!(error instanceof StoreUnavailableError)) return false;
  return !error.message.includes("refused the command") || TRANSIENT_REPLIES.test(error.message);
}

/**
 * Milliseconds before retry number `attempt` (0-based): exponential from `baseDelayMs`, capped
 * at `maxDelayMs`, with "equal" jitter (between half the step and the whole step).
 */
export function storeRetryDelay(attempt: number, policy: StoreRetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs ?? 1_000, (policy.baseDelayMs ?? 50) * 2 ** attempt);
  return ceiling / 2 + random() * ceiling / 2;
}

/** Runs a store call, repeating it while it fails transiently and the budget lasts. */
export type StoreRetry = <T>(call: () => Promise<T>, signal?: AbortSignal) => Promise<T>;

/**
 * Repeats store calls that fail transiently ({@link isTransientStoreError}) with backoff for up
 * to `budgetMs` each, reporting the outage to `outage` (two log lines per outage, not one per
 * attempt). A call whose first attempt reached the store but whose reply was lost runs twice:
 * the calls repeated here must be safe to repeat (reads, and steps with an id, see `TaskStep`).
 * When `signal` aborts, it stops waiting and throws the last error.
 *
 * @example
 * ```ts
 * import { storeOutage } from "../store/mod.ts";
 * const retry = storeRetry({ budgetMs: 10_000 }, storeOutage(console.error));
 * const value = await retry(() => Promise.resolve(42)); // 42
 * ```
 */
export function storeRetry(
  policy: StoreRetryPolicy,
  outage: StoreOutage,
  effects: { now?: () => number; random?: () => number; retried?: () => void } = {},
): StoreRetry {
  const now = effects.now ?? Date.now;
  const random = effects.random ?? Math.random;
  return async <T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T> => {
    const started = now();
    for (let attempt = 0;; attempt++) {
      try {
        const value = await call();
        outage.answered();
        return value;
      } catch (error) {
        if (!isTransientStoreError(error)) throw error;
        outage.failed("task runner", error as Error);
        const delay = storeRetryDelay(attempt, policy, random);
        if (signal?.aborted || now() - started + delay > policy.budgetMs) throw error;
        await sleep(delay, signal).catch(() => {});
        if (signal?.aborted) throw error;
        effects.retried?.();
      }
    }
  };
}
