import type { CloudRecord } from "./account.ts";
import type { CloudClient } from "./client.ts";
import type { TaskReference } from "./databases.ts";
import { type ListOptions, readList } from "./paging.ts";

/** A cloud subscription; fields beyond these pass through. */
export interface CloudSubscription {
  readonly id: number;
  readonly name: string;
  readonly [field: string]: unknown;
}

/** Every subscription of the account. */
export function listSubscriptions(client: CloudClient, options?: ListOptions): Promise<CloudSubscription[]> {
  return readList(
    client,
    "/subscriptions",
    (b) => (b as { subscriptions?: CloudSubscription[] })?.subscriptions,
    options,
  );
}

/** One subscription. */
export function getSubscription(client: CloudClient, subscription: number): Promise<CloudSubscription> {
  return client.get<CloudSubscription>(`/subscriptions/${subscription}`);
}

/** Starts creating a subscription from a full request body. */
export function createSubscription(client: CloudClient, body: CloudRecord): Promise<TaskReference> {
  return client.send<TaskReference>("POST", "/subscriptions", body);
}

/** Starts changing a subscription. */
export function updateSubscription(
  client: CloudClient,
  subscription: number,
  changes: CloudRecord,
): Promise<TaskReference> {
  return client.send<TaskReference>("PUT", `/subscriptions/${subscription}`, changes);
}

/** Starts deleting a subscription (the API refuses while it has databases). */
export function deleteSubscription(client: CloudClient, subscription: number): Promise<TaskReference> {
  return client.send<TaskReference>("DELETE", `/subscriptions/${subscription}`);
}
