import type { IdempotencyRecord, IdempotencyStore } from "./port.ts";

/**
 * The memory twin of the idempotency scripts: one process, each operation synchronous, so
 * atomic; expired keys go when next touched, and in a sweep every 1,000 claims.
 *
 * @example
 * ```ts
 * const keys = createMemoryIdempotencyStore();
 * await keys.claim("order-1", "ab12", 60_000); // undefined: taken
 * await keys.claim("order-1", "cd34", 60_000); // { fingerprint: "ab12" }
 * ```
 */
export function createMemoryIdempotencyStore(options: { now?: () => number } = {}): IdempotencyStore {
  const now = options.now ?? Date.now;
  const keys = new Map<string, { record: IdempotencyRecord; expires: number }>();
  let claims = 0;
  const live = (key: string) => {
    const entry = keys.get(key);
    if (entry && entry.expires <= now()) {
      keys.delete(key);
      return undefined;
    }
    return entry;
  };
  const sweep = () => {
    const t = now();
    for (const [key, entry] of keys) if (entry.expires <= t) keys.delete(key);
  };
  return {
    claim(key, fingerprint, ttlMs) {
      if (++claims % 1_000 === 0) sweep();
      const entry = live(key);
      if (entry) return Promise.resolve({ ...entry.record });
      keys.set(key, { record: { fingerprint }, expires: now() + ttlMs });
      return Promise.resolve(undefined);
    },
    complete(key, fingerprint, taskId, ttlMs) {
      const entry = live(key);
      if (!entry || entry.record.fingerprint !== fingerprint || entry.record.taskId !== undefined) {
        return Promise.resolve(false);
      }
      keys.set(key, { record: { fingerprint, taskId }, expires: now() + ttlMs });
      return Promise.resolve(true);
    },
    release(key, fingerprint) {
      if (live(key)?.record.fingerprint === fingerprint) keys.delete(key);
      return Promise.resolve();
    },
  };
}
