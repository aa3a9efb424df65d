import type { EnterpriseClient } from "./client.ts";
import type { AlertMap } from "./health.ts";

/**
 * The cluster's settings. The specification gives it `status` and `state` (healthy: `active`); a real
 * cluster has neither, so its health is read from its nodes, databases and alerts
 * (`summarizeHealth`). Fields beyond these pass through.
 */
export interface Cluster {
  readonly name: string;
  readonly status?: string;
  readonly state?: string;
  readonly [field: string]: unknown;
}

/** The last interval of cluster statistics (`cpu_user`, `free_memory` in bytes, …). */
export type Stats = Readonly<Record<string, unknown>>;

/** What `/v1/bootstrap` tells without credentials: whether the node is set up, and its version. */
export interface Bootstrap {
  readonly bootstrap_status?: { readonly state?: string; readonly [field: string]: unknown };
  readonly local_node_info?: { readonly software_version?: string; readonly [field: string]: unknown };
  readonly [field: string]: unknown;
}

/** The cluster's settings and state. */
export function getCluster(client: EnterpriseClient): Promise<Cluster> {
  return client.get<Cluster>("/v1/cluster");
}

/** Changes the cluster's settings (e.g. `name`). */
export function updateCluster(client: EnterpriseClient, changes: Readonly<Record<string, unknown>>): Promise<Cluster> {
  return client.send<Cluster>("PUT", "/v1/cluster", changes);
}

/** The cluster's statistics of the last interval. */
export function clusterStats(client: EnterpriseClient): Promise<Stats> {
  return client.get<Stats>("/v1/cluster/stats/last");
}

/** The cluster's certificates in PEM, by name (`api_cert`, `proxy_cert`, …). */
export function clusterCertificates(client: EnterpriseClient): Promise<Readonly<Record<string, string>>> {
  return client.get<Record<string, string>>("/v1/cluster/certificates");
}

/**
 * The cluster's alerts by name: `enabled`, raised (`state`), `severity`, and in `change_value`
 * what was measured, with the threshold as `global_threshold`.
 */
export function clusterAlerts(client: EnterpriseClient): Promise<AlertMap> {
  return client.get<AlertMap>("/v1/cluster/alerts");
}

/** The bootstrap status, which a cluster answers without checking credentials. */
export function getBootstrap(client: EnterpriseClient): Promise<Bootstrap> {
  return client.get<Bootstrap>("/v1/bootstrap");
}
