import type { WindowDecision } from "../ratelimit/mod.ts";
import { StoreCtlError } from "../errors/mod.ts";
import type { EventLog, TaskStore, WorkQueue } from "../task_model/ports.ts";
import type { DocumentStore } from "./documents/port.ts";
import type { IdempotencyStore } from "./idempotency/port.ts";
import type { WebhookStore } from "./webhooks/port.ts";

/**
 * The key-value store port the service runs on: small and domain-shaped. It grows operations
 * (task records, event logs) as the features that need them land.
 */
export interface Store {
  /** Which backend this is, reported by `/health`. */
  readonly kind: "memory" | "redis" | "redis-cluster" | "upstash";
  /** Resolves when the store answers; rejects with the cause when it does not. */
  ping(): Promise<void>;
  /**
   * Sliding-window check, one atomic step: drop entries older than `windowMs`, and when fewer
   * than `limit` remain, record this request and set the key to expire after `windowMs`.
   */
  hitSlidingWindow(key: string, limit: number, windowMs: number): Promise<WindowDecision>;
  /** Task records, links and indexes (`lib/task_model/ports.ts`). */
  readonly tasks: TaskStore;
  /** Event channels (`lib/task_model/ports.ts`). */
  readonly events: EventLog;
  /** The work queue of root tasks (`lib/task_model/ports.ts`). */
  readonly queue: WorkQueue;
  /** Documents, chunks, staging, pipeline status and their change stream (`lib/store/documents/port.ts`). */
  readonly documents: DocumentStore;
  /** `Idempotency-Key`s of creating requests and their tasks (`lib/store/idempotency/port.ts`). */
  readonly idempotency: IdempotencyStore;
  /** A tenant's webhooks and their deliveries (`lib/store/webhooks/port.ts`). */
  readonly webhooks: WebhookStore;
  /**
   * The tenant's view of this store: its own tasks, events, queue, documents and idempotency
   * keys, on this store's connections (`tenant.ts`); `kind`, `ping` and `hitSlidingWindow` are
   * this store's. The same tenant gives the same view; a view's `forTenant` is its base's
   * (tenants do not nest). Throws on a name that is not 1-64 characters of `A-Za-z0-9._-`.
   */
  forTenant(tenant: string): Store;
  /** Releases connections (a tenant view's does nothing: its base's closes it). */
  close(): Promise<void>;
}

/** The deadline of each store command unless configured (`STORE_TIMEOUT_MS`), in milliseconds. */
export const DEFAULT_STORE_TIMEOUT_MS = 1_000;

/**
 * The store did not answer. The message is ours, for logs, `/health` and problem details: it
 * names the store and the reason (never a password) and says what happens next; the client
 * library's own error is kept as `cause`.
 *
 * @example
 * ```ts
 * throw new StoreUnavailableError("Redis at 127.0.0.1:6379 is not reachable (connection refused); retrying");
 * ```
 */
export class StoreUnavailableError extends StoreCtlError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("network", message, options);
    this.name = "StoreUnavailableError";
  }
}
