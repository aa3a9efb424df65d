/**
 * The cloud management API: a client with key and secret headers and the path rule of a base
 * that ends in `/v1`, one file per resource, lists (a subscription's databases page by page), and task polling.
 *
 * @example
 * ```ts
 * import { createCloudClient, waitForTask } from "./mod.ts";
 * const client = createCloudClient({ apiKey: "k", apiSecret: "s", apiUrl: "https://api.example.com/v1" });
 * const { taskId } = await client.send<{ taskId: string }>("POST", "/subscriptions/1/databases", { name: "cache", memoryLimitInGb: 1 });
 * const task = await waitForTask(client, taskId);
 * ```
 *
 * @module
 */
export {
  type CloudRecord,
  getAccount,
  listAclRoles,
  listAclRules,
  listAclUsers,
  listPaymentMethods,
  listRegions,
} from "./account.ts";
export { type CloudAccess, type CloudClient, cloudPath, createCloudClient } from "./client.ts";
export {
  type CloudDatabase,
  createDatabase,
  deleteDatabase,
  getDatabase,
  listDatabases,
  type TaskReference,
  updateDatabase,
} from "./databases.ts";
export { listAll, type ListOptions, readList } from "./paging.ts";
export {
  type CloudSubscription,
  createSubscription,
  deleteSubscription,
  getSubscription,
  listSubscriptions,
  updateSubscription,
} from "./subscriptions.ts";
export { getPrivateServiceConnect, listPeerings, listTransitGateways, type TaskWaiter } from "./networking.ts";
export { historyFile, type TaskHistory, taskHistory } from "./task_history.ts";
export {
  type CloudTask,
  getTask,
  isTaskReference,
  listTasks,
  readThroughTask,
  TASK_FAILED,
  TASK_SUCCEEDED,
  waitForTask,
  type WaitOptions,
} from "./tasks.ts";
