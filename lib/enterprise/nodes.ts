import type { Action } from "./actions.ts";
import type { Stats } from "./cluster.ts";
import type { EnterpriseClient } from "./client.ts";
import type { AlertMap } from "./health.ts";
import { lastStats } from "./stats.ts";

/** A node of the cluster. Fields beyond these pass through. */
export interface Node {
  readonly uid: number;
  readonly status?: string;
  readonly addr?: string;
  readonly software_version?: string;
  readonly [field: string]: unknown;
}

/** Every node of the cluster. */
export function listNodes(client: EnterpriseClient): Promise<Node[]> {
  return client.get<Node[]>("/v1/nodes");
}

/** One node. */
export function getNode(client: EnterpriseClient, uid: number): Promise<Node> {
  return client.get<Node>(`/v1/nodes/${uid}`);
}

/** Changes a node's settings (e.g. `accept_servers`, `rack_id`). */
export function updateNode(
  client: EnterpriseClient,
  uid: number,
  changes: Readonly<Record<string, unknown>>,
): Promise<Node> {
  return client.send<Node>("PUT", `/v1/nodes/${uid}`, changes);
}

/**
 * Starts removing a node from the cluster (`POST /v1/nodes/{uid}/actions/remove`): its shards
 * and endpoints move to the other nodes first. The answer is the action, which
 * `waitForAction` follows; a cluster that answers without an `action_uid` is followed at
 * `GET /v1/nodes/{uid}/actions/remove`.
 */
export async function removeNode(client: EnterpriseClient, uid: number): Promise<Action> {
  const action = await client.send<Action | undefined>("POST", `/v1/nodes/${uid}/actions/remove`, {});
  return action !== null && typeof action === "object" ? action : { status: "queued" };
}

/** A node's statistics of the last interval (`/v1/nodes/stats/last/{uid}`, unwrapped from its uid key). */
export function nodeStats(client: EnterpriseClient, uid: number): Promise<Stats> {
  return lastStats(client, "nodes", uid);
}

/** Every node's alerts, by node uid. */
export function nodesAlerts(client: EnterpriseClient): Promise<Readonly<Record<string, AlertMap>>> {
  return client.get<Record<string, AlertMap>>("/v1/nodes/alerts");
}
