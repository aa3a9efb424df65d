/**
 * The enterprise (cluster) management API: a client with HTTP Basic and the `/v1` path rule,
 * one file per resource (cluster, nodes, bdbs, users with roles and ACLs, crdbs, logs, actions),
 * and the cluster's health read from what a real cluster returns (`summarizeHealth`).
 *
 * @example
 * ```ts
 * import { createEnterpriseClient } from "./mod.ts";
 * const client = createEnterpriseClient({ url: "https://cluster:9443", username: "a", password: "b" });
 * const bdbs = await client.get<{ name: string }[]>("/v1/bdbs");
 * ```
 *
 * @module
 */
export {
  basicAuth,
  createEnterpriseClient,
  type EnterpriseAccess,
  type EnterpriseClient,
  enterprisePath,
} from "./client.ts";
export {
  type Bdb,
  bdbAddress,
  type BdbEndpoint,
  bdbPorts,
  bdbsAlerts,
  bdbStats,
  createBdb,
  deleteBdb,
  getBdb,
  listBdbs,
  updateBdb,
} from "./bdbs.ts";
export {
  type Action,
  ACTION_FAILED,
  ACTION_SUCCEEDED,
  type ActionList,
  actionProgress,
  type ActionRef,
  type ActionWaitOptions,
  getAction,
  listActions,
  waitForAction,
} from "./actions.ts";
export {
  type ActiveAlert,
  type Alert,
  type AlertMap,
  type Health,
  type HealthInput,
  summarizeHealth,
} from "./health.ts";
export { lastStats, unwrapStats } from "./stats.ts";
export {
  type Bootstrap,
  type Cluster,
  clusterAlerts,
  clusterCertificates,
  clusterStats,
  getBootstrap,
  getCluster,
  type Stats,
  updateCluster,
} from "./cluster.ts";
export { getNode, listNodes, type Node, nodesAlerts, nodeStats, removeNode, updateNode } from "./nodes.ts";
export {
  createUser,
  getUser,
  listRedisAcls,
  listRoles,
  listUsers,
  type RedisAcl,
  type Role,
  type User,
} from "./users.ts";
export { type Crdb, type CrdbTask, createCrdb, getCrdb, listCrdbs, listCrdbTasks } from "./crdbs.ts";
export { type CertificateSummary, describeCertificate } from "./certificates.ts";
export { listLogs, type LogEntry, type LogQuery } from "./logs.ts";
export {
  type DebuginfoDownload,
  debuginfoPath,
  downloadDebuginfo,
  exactLength,
  type PackageTarget,
  type RouteFamily,
  servesNewRoutes,
} from "./debuginfo.ts";
