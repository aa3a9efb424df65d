/**
 * The idempotency port: which request an `Idempotency-Key` was first used for, and the task it
 * created, kept for a while so that a retried request answers that task instead of making a
 * second one. Every operation is one atomic step (a Lua script on Redis).
 *
 * @module
 */

/** What a key holds: the fingerprint of its first request and, once created, that request's task. */
export interface IdempotencyRecord {
  readonly fingerprint: string;
  /** Absent while the first request is still being handled. */
  readonly taskId?: string;
}

/** Keys of idempotent requests. Fingerprints hold no spaces (hex digests). */
export interface IdempotencyStore {
  /**
   * Takes `key` for the request of `fingerprint` for `ttlMs` when nobody holds it: resolves
   * `undefined` then. Otherwise resolves what the key holds (and changes nothing).
   */
  claim(key: string, fingerprint: string, ttlMs: number): Promise<IdempotencyRecord | undefined>;
  /**
   * Records the task made for a claimed key and keeps the key `ttlMs` from now; false (and no
   * change) unless the key is held by `fingerprint` without a task.
   */
  complete(key: string, fingerprint: string, taskId: string, ttlMs: number): Promise<boolean>;
  /** Forgets `key` when `fingerprint` holds it (its request failed, or its task is gone). */
  release(key: string, fingerprint: string): Promise<void>;
}
