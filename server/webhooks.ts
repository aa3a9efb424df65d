/**
 * Making a subscription, the same for `POST /webhooks`, a task's `webhook` and an A2A push
 * notification config: the URL checked (scheme, and every address its host resolves to) before
 * anything is stored, a new signing secret, and the tenant's limit.
 *
 * @module
 */
import type { Store, Webhook } from "../lib/store/mod.ts";
import type { SubmitRequest, TaskRecord } from "../lib/tasks/mod.ts";
import type { Scope } from "./service.ts";
import { WEBHOOK_LIMITS } from "../lib/store/mod.ts";
import { HOOK_KINDS } from "../lib/tasks/mod.ts";
import { checkUrl, type DestinationPolicy, newSecret, resolveDestination } from "../lib/webhooks/mod.ts";

/** The event kinds a subscription may ask for, and what it gets when it names none. */
export const WEBHOOK_EVENTS = [...HOOK_KINDS] as [string, ...string[]];

/** Why a subscription was not made: a URL the rules refuse, or a tenant at its limit. */
export class WebhookRefused extends Error {
  readonly limit: boolean;
  constructor(message: string, limit = false) {
    super(message);
    this.name = "WebhookRefused";
    this.limit = limit;
  }
}

/** What a subscription is made from. */
export interface WebhookRequest {
  readonly url: string;
  readonly events?: readonly string[];
  readonly task_id?: string;
  readonly session_id?: string;
  readonly a2a?: Webhook["a2a"];
}

/** Checks `request.url` by `policy` and stores the subscription; throws {@link WebhookRefused}. */
export async function subscribe(store: Store, request: WebhookRequest, policy: DestinationPolicy): Promise<Webhook> {
  const checked = checkUrl(request.url, policy);
  if (!checked.ok) throw new WebhookRefused(checked.reason);
  const resolved = await resolveDestination(checked.url, policy);
  if (!resolved.ok) throw new WebhookRefused(resolved.reason);
  const webhook: Webhook = {
    id: `wh_${crypto.randomUUID().replaceAll("-", "")}`,
    url: checked.url.href,
    events: [...new Set(request.events?.length ? request.events : WEBHOOK_EVENTS)],
    ...(request.task_id !== undefined && { task_id: request.task_id }),
    ...(request.session_id !== undefined && { session_id: request.session_id }),
    secret: newSecret(),
    created_at: new Date().toISOString(),
    ...(request.a2a && { a2a: request.a2a }),
  };
  if (!await store.webhooks.add(webhook)) {
    throw new WebhookRefused(
      `This tenant has ${WEBHOOK_LIMITS.webhooks} webhooks, the most it may keep; delete one (DELETE /webhooks/{id})`,
      true,
    );
  }
  return webhook;
}

/**
 * Submits a task watched by a webhook that `subscription` makes first, under the task's id to be
 * (so that a task that ends at once is still told of), and removes again if the task is refused.
 */
export async function submitWatched(
  scope: Scope,
  request: SubmitRequest,
  subscription: (taskId: string) => Promise<Webhook>,
): Promise<{ record: TaskRecord; webhook: Webhook }> {
  const session_id = request.session_id ?? crypto.randomUUID();
  const task_id = scope.store.tasks.newRootId(session_id);
  const webhook = await subscription(task_id);
  try {
    return { record: await scope.runner.submit({ ...request, session_id, task_id }), webhook };
  } catch (error) {
    await scope.store.webhooks.remove(webhook.id);
    throw error;
  }
}

/** A subscription as the API shows it after its creation: without its secret. */
export function publicWebhook({ secret: _secret, a2a: _a2a, events, ...shown }: Webhook) {
  return { ...shown, events: [...events] };
}
