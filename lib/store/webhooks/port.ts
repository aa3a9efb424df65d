/**
 * The webhooks port: a tenant's subscriptions, and their deliveries, stored and leased like jobs
 * so that a process that dies mid-delivery loses none (another takes the delivery over when its
 * lease runs out, with the same id). Deliveries are made from the store's `hooks` event channel
 * (the task events a webhook can ask for) by one process at a time, which holds the fan-out
 * lease and keeps the channel position it has reached. Every operation is one atomic step.
 *
 * @module
 */

/** A subscription. `task_id` or `session_id` narrows it to one task or one session's tasks. */
export interface Webhook {
  readonly id: string;
  readonly url: string;
  /** The event kinds it wants: `done`, `failed`, `cancelled`, `input_required`. */
  readonly events: readonly string[];
  readonly task_id?: string;
  readonly session_id?: string;
  /** The Standard Webhooks signing secret (`whsec_…`): shown once, at creation. */
  readonly secret: string;
  readonly created_at: string;
  /** Set for an A2A push notification config: its body is A2A's, with these headers. */
  readonly a2a?: { readonly token?: string; readonly authorization?: string };
}

/** One try of a delivery. */
export interface Attempt {
  readonly at: string;
  readonly ok: boolean;
  readonly status?: number;
  readonly error?: string;
  readonly ms: number;
}

/** A delivery as made: which event of which task, to which subscription, with which body. */
export interface NewDelivery {
  /** Also the `webhook-id` header: the same on every attempt, on every process. */
  readonly id: string;
  readonly webhook_id: string;
  readonly task_id: string;
  readonly event: string;
  readonly created_at: string;
  readonly body: string;
}

/** A delivery with its state and attempts, newest last. */
export interface Delivery extends NewDelivery {
  readonly state: "pending" | "delivered" | "failed";
  readonly attempts: readonly Attempt[];
  /** When a pending delivery is tried next (ms since the epoch). */
  readonly next_at?: number;
}

/** How an attempt ended for the delivery. */
export type Outcome = { readonly delivered: true } | { readonly retryAt: number } | { readonly failed: true };

/** Subscriptions a tenant may keep, and deliveries and attempts kept per subscription and delivery. */
export const WEBHOOK_LIMITS = { webhooks: 1_000, deliveries: 100, attempts: 30 } as const;

/** A tenant's webhooks and deliveries. */
export interface WebhookStore {
  /** Stores a subscription; false when the tenant already has {@link WEBHOOK_LIMITS}`.webhooks`. */
  add(webhook: Webhook): Promise<boolean>;
  get(id: string): Promise<Webhook | undefined>;
  /** Oldest first. */
  list(): Promise<Webhook[]>;
  /** Removes it with its deliveries; false when there is none. */
  remove(id: string): Promise<boolean>;
  /** The subscriptions that may want events of a task: its own, its session's, the tenant's. */
  matching(taskId: string, sessionId: string): Promise<Webhook[]>;

  /**
   * Takes (or keeps) the fan-out lease for `leaseMs`: the position on the `hooks` channel reached
   * so far, or undefined when another consumer holds the lease.
   */
  claimFanOut(consumer: string, leaseMs: number): Promise<number | undefined>;
  /**
   * Stores `deliveries` (those not stored yet), due now, and moves the position to `position`,
   * in one step; false (and nothing stored) when `consumer` no longer holds the lease.
   */
  fannedOut(consumer: string, position: number, deliveries: readonly NewDelivery[]): Promise<boolean>;

  /** At most `max` deliveries due by `now`, each leased until `now + leaseMs`. */
  take(now: number, leaseMs: number, max: number): Promise<Delivery[]>;
  /** Records an attempt and what follows it; nothing when the delivery is gone. */
  finish(id: string, attempt: Attempt, outcome: Outcome): Promise<void>;
  /** A subscription's deliveries, newest first, at most {@link WEBHOOK_LIMITS}`.deliveries`. */
  deliveries(webhookId: string): Promise<Delivery[]>;
  /** Makes a delivery of this subscription due now again (pending); false when there is none. */
  redeliver(webhookId: string, deliveryId: string, now: number): Promise<boolean>;
}
