/**
 * The key-value store port the service runs on. It grows domain-shaped operations (rate-limit
 * checks, task records, event logs) as the features that need them land.
 */
export interface Store {
  /** Which backend this is, reported by `/health`. */
  readonly kind: "memory" | "redis" | "upstash";
  /** Resolves when the store answers; rejects with the cause when it does not. */
  ping(): Promise<void>;
  /** Releases connections. */
  close(): Promise<void>;
}
