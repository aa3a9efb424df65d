/**
 * Delivers a tenant's webhooks. Two loops per process:
 *
 * - the fan-out: the process holding the store's fan-out lease follows the `hooks` channel from
 *   the position reached and, for each event, stores a delivery per subscription that wants it
 *   (with the position, in one step: a process that dies between two steps makes each delivery
 *   once, and the next holder goes on from there);
 * - the deliveries: every process takes due deliveries under a lease (a dead process's come
 *   back when their lease runs out, with the same `webhook-id`), tries each — the URL checked
 *   again, its host resolved once and that address connected to — and records the attempt:
 *   delivered, or tried again after a backoff with jitter, or failed once the retry window ends.
 *
 * @module
 */
import { activeTrace, inSpan, isTracing, SpanKind, SpanStatusCode, type TaskTrace } from "../tracing/mod.ts";
import { type Store, type StoreOutage, StoreUnavailableError, type Webhook } from "../store/mod.ts";
import { HOOKS_CHANNEL, type StoredEvent, type TaskRecord } from "../task_model/mod.ts";
import { sleep } from "../time/mod.ts";
import { attemptDelivery } from "./attempt.ts";
import { retryDelayMs } from "./backoff.ts";
import { checkUrl, type DestinationPolicy, resolveDestination } from "./destination.ts";
import { deliveryBody } from "./payload.ts";
import { webhookHeaders } from "./signature.ts";

/** Delivery settings (`WEBHOOK_*`). */
export interface DeliveryConfig {
  /** `WEBHOOK_TIMEOUT_MS`: one attempt's deadline. */
  readonly timeoutMs: number;
  /** `WEBHOOK_RETRY_HOURS`: how long a delivery is tried, from its first attempt. */
  readonly retryWindowMs: number;
  readonly policy: DestinationPolicy;
}

export const DEFAULT_DELIVERY: DeliveryConfig = {
  timeoutMs: 10_000,
  retryWindowMs: 24 * 3_600_000,
  policy: { allowHttp: false, allowHosts: [] },
};

/** What a dispatcher is built from. */
export interface DispatcherOptions {
  /** A tenant's view of the store (or the store's own). */
  readonly store: Store;
  readonly config: DeliveryConfig;
  /** The body of an A2A push notification config's delivery (A2A's task JSON). */
  readonly a2aBody: (record: TaskRecord) => string;
  readonly log: (line: string) => void;
  /** Where a store that does not answer is told (once per outage, shared with the service's other callers). */
  readonly outage?: StoreOutage;
  /** How often to look for due deliveries (retries, and those other processes left). Default 1 s. */
  readonly pollMs?: number;
  /** Attempts at once. Default 16. */
  readonly concurrency?: number;
  /** Told how each attempt ended (metrics). */
  readonly attempted?: (outcome: DeliveryOutcome) => void;
}

/** How an attempt ended for its delivery: delivered, to be tried again, or given up. */
export type DeliveryOutcome = "delivered" | "retrying" | "failed";

/** A running dispatcher. */
export interface Dispatcher {
  /** Stops both loops after the attempts under way; what is left stays stored for the others. */
  close(): Promise<void>;
}

/** Starts both loops for `options.store`. */
export function startDispatcher(options: DispatcherOptions): Dispatcher {
  const { store, config, log } = options;
  const pollMs = options.pollMs ?? 1_000;
  const concurrency = options.concurrency ?? 16;
  // Longer than an attempt, so that a live process never has its delivery taken over.
  const leaseMs = config.timeoutMs + 5_000;
  const consumer = `dispatcher-${crypto.randomUUID()}`;
  const stop = new AbortController();
  let wake = () => {};
  const woken = () => new Promise<void>((resolve) => wake = resolve);
  const inflight = new Set<Promise<void>>();
  /** A store call's result, or `fallback` when it failed: an outage is logged once, with the service's. */
  const fails = (what: string) => (error: Error) => {
    if (error instanceof StoreUnavailableError && options.outage) options.outage.failed(`webhooks ${what}`, error);
    else if (!stop.signal.aborted) log(`webhooks: ${what} failed (${error.message})`);
  };
  const answered = <T>(value: T) => (options.outage?.answered(), value);

  /** The deliveries of one event: one per subscription that wants its kind. */
  const deliveriesOf = async (event: StoredEvent) => {
    const taskId = String(event.data.task_id);
    const record = await store.tasks.get(taskId);
    const wanting = (await store.webhooks.matching(taskId, record?.session_id ?? ""))
      .filter((w) => w.events.includes(event.kind));
    return wanting.map((webhook) => ({
      id: `msg_${webhook.id}_${event.id}`,
      webhook_id: webhook.id,
      task_id: taskId,
      event: event.kind,
      created_at: new Date().toISOString(),
      body: webhook.a2a && record ? options.a2aBody(record) : deliveryBody(event, record),
    }));
  };

  const fanOut = async () => {
    while (!stop.signal.aborted) {
      const position = await store.webhooks.claimFanOut(consumer, leaseMs).then(answered, (error) => {
        fails("fan-out")(error);
        return undefined;
      });
      if (position === undefined) {
        await sleep(leaseMs / 3, stop.signal).catch(() => {});
        continue;
      }
      const held = new AbortController();
      const renew = setInterval(() => {
        store.webhooks.claimFanOut(consumer, leaseMs).then((p) => p === undefined && held.abort(), () => held.abort());
      }, leaseMs / 3);
      try {
        const signal = AbortSignal.any([stop.signal, held.signal]);
        for await (const batch of store.events.followBatches(HOOKS_CHANNEL, position, signal)) {
          const made = (await Promise.all(batch.map(deliveriesOf))).flat();
          if (!await store.webhooks.fannedOut(consumer, batch.at(-1)!.id, made)) break; // the lease went elsewhere
          if (made.length > 0) wake();
        }
      } catch (error) {
        fails("fan-out")(error as Error);
        await sleep(pollMs, stop.signal).catch(() => {});
      } finally {
        clearInterval(renew);
      }
    }
  };

  const attempt = async (delivery: Awaited<ReturnType<Store["webhooks"]["take"]>>[number]) => {
    const webhook = await store.webhooks.get(delivery.webhook_id);
    if (!webhook) return; // removed meanwhile, with its deliveries
    const started = Date.now();
    // A span of the task's trace (its record read only when tracing), and the trace sent on to the receiver.
    const trace = isTracing() ? (await store.tasks.get(delivery.task_id))?.trace : undefined;
    const span = {
      kind: SpanKind.CLIENT,
      parent: trace,
      attributes: { "storectl.task.id": delivery.task_id, "storectl.webhook.id": webhook.id },
    };
    const tried = await inSpan("webhook POST", span, async (traced) => {
      const tried = await tryOnce(webhook, delivery.id, delivery.body, config, activeTrace());
      if (tried.status) traced?.setAttribute("http.response.status_code", tried.status);
      if (!tried.ok) traced?.setStatus({ code: SpanStatusCode.ERROR, message: tried.error ?? `HTTP ${tried.status}` });
      return tried;
    });
    const at = new Date(started).toISOString();
    const first = delivery.attempts[0] ? Date.parse(delivery.attempts[0].at) : started;
    const retryAt = Date.now() + retryDelayMs(delivery.attempts.length + 1);
    const outcome = tried.ok
      ? { delivered: true as const }
      : tried.final || retryAt - first > config.retryWindowMs
      ? { failed: true as const }
      : { retryAt };
    const { ok, status, error } = tried;
    await store.webhooks.finish(delivery.id, {
      at,
      ok,
      ms: Date.now() - started,
      ...(status && { status }),
      ...(error && { error }),
    }, outcome);
    options.attempted?.("delivered" in outcome ? "delivered" : "failed" in outcome ? "failed" : "retrying");
  };

  const deliver = async () => {
    while (!stop.signal.aborted) {
      const room = concurrency - inflight.size;
      const due = room > 0
        ? await store.webhooks.take(Date.now(), leaseMs, room).then(answered, (error) => (fails("take")(error), []))
        : [];
      for (const delivery of due) {
        const running: Promise<void> = attempt(delivery)
          .catch(fails(`delivery ${delivery.id}`))
          .finally(() => {
            inflight.delete(running);
            wake();
          });
        inflight.add(running);
      }
      if (due.length === room && room > 0) continue; // more may be due
      await Promise.race([woken(), sleep(pollMs, stop.signal).catch(() => {})]);
    }
  };

  const loops = Promise.all([fanOut(), deliver()]);
  return {
    async close() {
      stop.abort();
      wake();
      await loops;
      await Promise.all(inflight);
    },
  };
}

/** One attempt: the URL checked again, its host resolved once and that address connected to. */
async function tryOnce(
  webhook: Webhook,
  id: string,
  body: string,
  config: DeliveryConfig,
  trace?: TaskTrace,
): Promise<{ ok: boolean; status?: number; error?: string; final?: boolean }> {
  const checked = checkUrl(webhook.url, config.policy);
  if (!checked.ok) return { ok: false, error: checked.reason, final: true }; // the rules changed since it was made
  const destination = await resolveDestination(checked.url, config.policy);
  if (!destination.ok) return { ok: false, error: destination.reason };
  const headers = {
    ...await webhookHeaders(webhook.secret, id, Math.floor(Date.now() / 1000), body),
    ...a2aHeaders(webhook),
    ...trace,
  };
  const { ok, status, error } = await attemptDelivery({
    url: checked.url,
    address: destination.address,
    family: destination.family,
    headers,
    body,
    timeoutMs: config.timeoutMs,
  });
  return { ok, status, error };
}

/** An A2A push notification config's headers: A2A's content type, and its token or credentials. */
function a2aHeaders(webhook: Webhook): Record<string, string> {
  if (!webhook.a2a) return {};
  return {
    "content-type": "application/a2a+json",
    ...(webhook.a2a.authorization
      ? { authorization: webhook.a2a.authorization }
      : webhook.a2a.token && { "x-a2a-notification-token": webhook.a2a.token }),
  };
}
