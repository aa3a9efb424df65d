import {
  type Attempt,
  type Delivery,
  type NewDelivery,
  type Outcome,
  type Webhook,
  WEBHOOK_LIMITS,
  type WebhookStore,
} from "./port.ts";

/**
 * The webhooks port in memory: the twin of `scripted.ts` for one process.
 *
 * @example
 * ```ts
 * const hooks = createMemoryWebhookStore();
 * await hooks.claimFanOut("me", 30_000); // 0: nothing fanned out yet
 * ```
 */
export function createMemoryWebhookStore(): WebhookStore {
  const webhooks = new Map<string, Webhook>();
  const deliveries = new Map<string, Delivery>();
  /** Delivery ids by subscription, oldest first. */
  const logs = new Map<string, string[]>();
  /** When each pending delivery is due (or its lease runs out). */
  const due = new Map<string, number>();
  let fanOut: { consumer: string; until: number } | undefined;
  let position = 0;

  const drop = (deliveryId: string) => {
    deliveries.delete(deliveryId);
    due.delete(deliveryId);
  };
  const copy = <T>(value: T): T => structuredClone(value);

  return {
    add(webhook) {
      if (webhooks.size >= WEBHOOK_LIMITS.webhooks) return Promise.resolve(false);
      webhooks.set(webhook.id, copy(webhook));
      return Promise.resolve(true);
    },
    get(id) {
      const webhook = webhooks.get(id);
      return Promise.resolve(webhook && copy(webhook));
    },
    list() {
      return Promise.resolve([...webhooks.values()].map(copy));
    },
    remove(id) {
      if (!webhooks.delete(id)) return Promise.resolve(false);
      for (const deliveryId of logs.get(id) ?? []) drop(deliveryId);
      logs.delete(id);
      return Promise.resolve(true);
    },
    matching(taskId, sessionId) {
      const wanted = (w: Webhook) =>
        w.task_id !== undefined ? w.task_id === taskId : w.session_id === undefined || w.session_id === sessionId;
      return Promise.resolve([...webhooks.values()].filter(wanted).map(copy));
    },
    claimFanOut(consumer, leaseMs) {
      const now = Date.now();
      if (fanOut && fanOut.consumer !== consumer && fanOut.until > now) return Promise.resolve(undefined);
      fanOut = { consumer, until: now + leaseMs };
      return Promise.resolve(position);
    },
    fannedOut(consumer, reached, made) {
      if (fanOut?.consumer !== consumer || fanOut.until <= Date.now()) return Promise.resolve(false);
      const now = Date.now();
      for (const delivery of made) add(delivery, now);
      position = reached;
      return Promise.resolve(true);
    },
    take(now, leaseMs, max) {
      const taken: Delivery[] = [];
      for (const [id, at] of due) {
        if (taken.length >= max) break;
        if (at > now) continue;
        due.set(id, now + leaseMs);
        taken.push(copy(deliveries.get(id)!));
      }
      return Promise.resolve(taken);
    },
    finish(id, attempt, outcome) {
      const delivery = deliveries.get(id);
      if (delivery) deliveries.set(id, after(delivery, attempt, outcome));
      if (delivery && "retryAt" in outcome) due.set(id, outcome.retryAt);
      else due.delete(id);
      return Promise.resolve();
    },
    deliveries(webhookId) {
      const ids = logs.get(webhookId) ?? [];
      return Promise.resolve(ids.toReversed().map((id) => copy(deliveries.get(id)!)));
    },
    redeliver(webhookId, deliveryId, now) {
      const delivery = deliveries.get(deliveryId);
      if (!delivery || delivery.webhook_id !== webhookId) return Promise.resolve(false);
      deliveries.set(deliveryId, { ...delivery, state: "pending", next_at: now });
      due.set(deliveryId, now);
      return Promise.resolve(true);
    },
  };

  function add(delivery: NewDelivery, now: number) {
    if (deliveries.has(delivery.id) || !webhooks.has(delivery.webhook_id)) return;
    deliveries.set(delivery.id, { ...copy(delivery), state: "pending", attempts: [], next_at: now });
    due.set(delivery.id, now);
    const log = logs.get(delivery.webhook_id) ?? [];
    log.push(delivery.id);
    logs.set(delivery.webhook_id, log);
    while (log.length > WEBHOOK_LIMITS.deliveries) drop(log.shift()!);
  }
}

/** The delivery after an attempt with `outcome`: the twin of `FINISH_LUA`. */
export function after(delivery: Delivery, attempt: Attempt, outcome: Outcome): Delivery {
  const attempts = [...delivery.attempts, attempt].slice(-WEBHOOK_LIMITS.attempts);
  if ("retryAt" in outcome) return { ...delivery, attempts, state: "pending", next_at: outcome.retryAt };
  const { next_at: _, ...rest } = delivery;
  return { ...rest, attempts, state: "delivered" in outcome ? "delivered" : "failed" };
}
