/**
 * A2A's push notification configs: webhooks of a task (`server/webhooks.ts`) whose deliveries
 * carry A2A's task JSON, with the config's token or credentials.
 *
 * @module
 */
import { z } from "zod";
import type { Webhook } from "../../lib/store/mod.ts";
import { subscribe, WebhookRefused } from "../webhooks.ts";
import { type CallContext, notFound, parseParams } from "./call.ts";
import { A2AError } from "./errors.ts";
import type { Json } from "./wire.ts";

/** A config as a request gives it. */
export const PushConfig = z.object({
  url: z.string().min(1, "url is required").max(2048),
  token: z.string().max(1024).optional(),
  authentication: z.object({ scheme: z.string().min(1), credentials: z.string().max(4096).optional() }).optional(),
}).passthrough();
const ConfigRef = z.object({ taskId: z.string().min(1).max(200), id: z.string().min(1).max(200) }).passthrough();

const noPush = () =>
  new A2AError(
    "PUSH_NOTIFICATION_NOT_SUPPORTED",
    "This service delivers no webhooks (WEBHOOKS_ENABLED=false, or the edge entry), so no push notifications",
  );

/** Makes the task's push notification config: a webhook of A2A's kind. */
export async function pushConfig(
  ctx: CallContext,
  taskId: string,
  config: z.output<typeof PushConfig>,
): Promise<Webhook> {
  if (!ctx.webhooks) throw noPush();
  const { scheme, credentials } = config.authentication ?? {};
  try {
    return await subscribe(ctx.scope.store, {
      url: config.url,
      task_id: taskId,
      a2a: {
        ...(config.token && { token: config.token }),
        ...(scheme && credentials && { authorization: `${scheme} ${credentials}` }),
      },
    }, ctx.webhooks);
  } catch (error) {
    if (error instanceof WebhookRefused) throw new A2AError("INVALID_PARAMS", `params.url: ${error.message}`);
    throw error;
  }
}

/** The task's push notification config `id`, or TaskNotFound. */
async function ownConfig(ctx: CallContext, taskId: string, id: string): Promise<Webhook> {
  if (!ctx.webhooks) throw noPush();
  const webhook = await ctx.scope.store.webhooks.get(id);
  if (!webhook?.a2a || webhook.task_id !== taskId) {
    throw new A2AError("TASK_NOT_FOUND", `Task '${taskId}' has no push notification config '${id}'`);
  }
  return webhook;
}

/** A push notification config as A2A shows it (its credentials are not shown again). */
function configOf(webhook: Webhook): Json {
  return {
    id: webhook.id,
    taskId: webhook.task_id,
    url: webhook.url,
    ...(webhook.a2a?.token && { token: webhook.a2a.token }),
    ...(webhook.a2a?.authorization && { authentication: { scheme: webhook.a2a.authorization.split(" ")[0] } }),
  };
}

/** CreateTaskPushNotificationConfig, Get…, List… and Delete…. */
export const pushConfigMethods = {
  /** CreateTaskPushNotificationConfig: a webhook of the task, delivering A2A's task JSON. */
  async createPushConfig(raw: unknown, ctx: CallContext): Promise<Json> {
    const params = parseParams(PushConfig.extend({ taskId: z.string().min(1).max(200) }), raw);
    if (!await ctx.scope.store.tasks.get(params.taskId)) throw notFound(params.taskId);
    return configOf(await pushConfig(ctx, params.taskId, params));
  },

  /** GetTaskPushNotificationConfig. */
  async getPushConfig(raw: unknown, ctx: CallContext): Promise<Json> {
    const { taskId, id } = parseParams(ConfigRef, raw);
    return configOf(await ownConfig(ctx, taskId, id));
  },

  /** ListTaskPushNotificationConfigs: all of the task's, on one page. */
  async listPushConfigs(raw: unknown, ctx: CallContext): Promise<Json> {
    const { taskId } = parseParams(z.object({ taskId: z.string().min(1).max(200) }).passthrough(), raw);
    if (!ctx.webhooks) throw noPush();
    if (!await ctx.scope.store.tasks.get(taskId)) throw notFound(taskId);
    const all = await ctx.scope.store.webhooks.list();
    return { configs: all.filter((w) => w.a2a && w.task_id === taskId).map(configOf), nextPageToken: "" };
  },

  /** DeleteTaskPushNotificationConfig. */
  async deletePushConfig(raw: unknown, ctx: CallContext): Promise<null> {
    const { taskId, id } = parseParams(ConfigRef, raw);
    await ownConfig(ctx, taskId, id);
    await ctx.scope.store.webhooks.remove(id);
    return null;
  },
};
