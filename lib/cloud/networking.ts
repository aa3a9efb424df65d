import type { CloudRecord } from "./account.ts";
import type { CloudClient } from "./client.ts";
import { type CloudTask, readThroughTask } from "./tasks.ts";

/** Follows a task to its end: `waitForTask` or a caller's own (with a spinner, say). */
export type TaskWaiter = (taskId: string) => Promise<CloudTask>;

/** A field that holds a list, as a list (an absent one is empty). */
function listIn(resource: unknown, key: string): CloudRecord[] {
  const value = (resource as Record<string, unknown> | undefined)?.[key];
  return Array.isArray(value) ? value : [];
}

/**
 * The VPC peerings of a subscription (`GET /subscriptions/{id}/peerings`, which the real API
 * answers with a task whose resource holds `peerings`).
 */
export async function listPeerings(client: CloudClient, subscription: number, wait?: TaskWaiter) {
  return listIn(await readThroughTask(client, `/subscriptions/${subscription}/peerings`, wait), "peerings");
}

/** The private service connect service of a subscription (`GET …/private-service-connect`, through a task). */
export async function getPrivateServiceConnect(
  client: CloudClient,
  subscription: number,
  wait?: TaskWaiter,
): Promise<CloudRecord | undefined> {
  const resource = await readThroughTask(client, `/subscriptions/${subscription}/private-service-connect`, wait);
  return resource && typeof resource === "object" && !Array.isArray(resource) ? resource as CloudRecord : undefined;
}

/** The transit gateway attachments of a subscription (`GET …/transitGateways`, through a task: `tgws`). */
export async function listTransitGateways(client: CloudClient, subscription: number, wait?: TaskWaiter) {
  return listIn(await readThroughTask(client, `/subscriptions/${subscription}/transitGateways`, wait), "tgws");
}
