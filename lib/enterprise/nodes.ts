import type { Stats } from "./cluster.ts";
import type { EnterpriseClient } from "./client.ts";

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

/** Removes a node from the cluster. */
export async function removeNode(client: EnterpriseClient, uid: number): Promise<void> {
  await client.send<unknown>("DELETE", `/v1/nodes/${uid}`);
}

/** A node's statistics of the last interval (the API keys them by uid; this unwraps them). */
export async function nodeStats(client: EnterpriseClient, uid: number): Promise<Stats> {
  return unwrapStats(await client.get<Record<string, Stats>>(`/v1/nodes/${uid}/stats/last`), uid);
}

/** Statistics keyed by uid (`{"1": {...}}`) as the object for `uid`; other shapes pass through. */
export function unwrapStats(body: Readonly<Record<string, unknown>>, uid: number): Stats {
  const inner = body?.[String(uid)];
  return inner !== null && typeof inner === "object" ? inner as Stats : body;
}
