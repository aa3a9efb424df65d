import { scriptCaller, type ScriptHost } from "../script_host.ts";
import type { Delivery, NewDelivery, Webhook, WebhookStore } from "./port.ts";
import { WEBHOOK_LIMITS } from "./port.ts";
import {
  ADD_LUA,
  CLAIM_FANOUT_LUA,
  DELIVERIES_LUA,
  FANNED_OUT_LUA,
  FINISH_LUA,
  GET_LUA,
  LIST_LUA,
  MATCHING_LUA,
  REDELIVER_LUA,
  REMOVE_LUA,
  TAKE_LUA,
} from "./scripts.ts";

/**
 * The webhooks port over a Redis-speaking host (ioredis or Upstash REST) with the scripts of
 * `scripts.ts`; the memory twin is `memory.ts`.
 *
 * @example
 * ```ts ignore
 * const hooks = createScriptedWebhookStore(host, { prefix: "storectl:" });
 * ```
 */
export function createScriptedWebhookStore(host: ScriptHost, options: { prefix?: string } = {}): WebhookStore {
  const p = `${options.prefix ?? ""}{wh}:`;
  const call = scriptCaller(host);
  const run = (script: string, args: (string | number)[]) => call([`${p}hooks`], script, [p, ...args.map(String)]);
  const webhookOf = (json: string) => JSON.parse(json) as Webhook;

  return {
    async add(webhook) {
      const { id, task_id = "", session_id = "" } = webhook;
      return Number(await run(ADD_LUA, [id, JSON.stringify(webhook), task_id, session_id, WEBHOOK_LIMITS.webhooks])) ===
        1;
    },
    async get(id) {
      const json = await run(GET_LUA, [id]) as string | null;
      return json ? webhookOf(json) : undefined;
    },
    async list() {
      return (await run(LIST_LUA, []) as (string | null)[]).filter((json) => json !== null).map(webhookOf);
    },
    async remove(id) {
      const webhook = await this.get(id);
      if (!webhook) return false;
      return Number(await run(REMOVE_LUA, [id, webhook.task_id ?? "", webhook.session_id ?? ""])) === 1;
    },
    async matching(taskId, sessionId) {
      return (await run(MATCHING_LUA, [taskId, sessionId]) as string[]).map(webhookOf);
    },
    async claimFanOut(consumer, leaseMs) {
      const position = Number(await run(CLAIM_FANOUT_LUA, [consumer, Math.max(1, Math.round(leaseMs))]));
      return position < 0 ? undefined : position;
    },
    async fannedOut(consumer, position, deliveries) {
      const args = deliveries.flatMap((d) => [d.id, d.webhook_id, JSON.stringify(d)]);
      return Number(await run(FANNED_OUT_LUA, [consumer, position, WEBHOOK_LIMITS.deliveries, ...args])) === 1;
    },
    async take(now, leaseMs, max) {
      return (await run(TAKE_LUA, [now, Math.round(leaseMs), max]) as Row[]).map(deliveryOf);
    },
    async finish(id, attempt, outcome) {
      const state = "retryAt" in outcome ? "pending" : "delivered" in outcome ? "delivered" : "failed";
      const next = "retryAt" in outcome ? outcome.retryAt : "";
      await run(FINISH_LUA, [id, JSON.stringify(attempt), state, next, WEBHOOK_LIMITS.attempts]);
    },
    async deliveries(webhookId) {
      return (await run(DELIVERIES_LUA, [webhookId, WEBHOOK_LIMITS.deliveries]) as Row[]).filter((r) => r[0])
        .map(deliveryOf);
    },
    async redeliver(webhookId, deliveryId, now) {
      return Number(await run(REDELIVER_LUA, [webhookId, deliveryId, now])) === 1;
    },
  };
}

/** A delivery's hash fields as a script returns them: j, s, a, n. */
type Row = [string, string, string, string | null];

function deliveryOf([json, state, attempts, next]: Row): Delivery {
  const made = JSON.parse(json) as NewDelivery;
  return {
    ...made,
    state: state as Delivery["state"],
    attempts: JSON.parse(attempts),
    ...(next !== null && next !== undefined && state === "pending" && { next_at: Number(next) }),
  };
}
