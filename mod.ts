/**
 * storectl as a library: clients of the cloud and enterprise management APIs (tasks and actions
 * waited for), support packages (download, optimize, upload), the web service (`createApp`), the
 * task runner and task kinds, the stores, the sliding-window rate limiter, and the local emulator
 * of both APIs. Deeper parts have their own entry points: `@storectl/storectl/cloud`, `/enterprise`,
 * `/support-package`, `/tasks`, `/store`, `/ratelimit`, `/server`, `/emulator` (see `deno.json`).
 *
 * Every example below runs as it is (`deno test --doc mod.ts`): the emulator stands in for the
 * real APIs, served in-process.
 *
 * @example Create a cloud database and wait for its task
 * ```ts
 * import { createCloudClient, createDatabase, createEmulator, DEFAULT_OPTIONS, fetchTransport, waitForTask } from "./mod.ts";
 *
 * const emulator = createEmulator({ ...DEFAULT_OPTIONS, taskDelayMs: 0 });
 * const transport = fetchTransport((url, init) => Promise.resolve(emulator.cloud.fetch(new Request(url, init))));
 * const cloud = createCloudClient({ apiKey: "demo-key", apiSecret: "demo-secret", apiUrl: "http://cloud.test/v1" }, {
 *   transport,
 * });
 * const { taskId } = await createDatabase(cloud, 156400, { name: "cache", datasetSizeInGb: 1 });
 * const task = await waitForTask(cloud, taskId, { intervalMs: 10 });
 * if (task.status !== "processing-completed") throw new Error(task.status);
 * ```
 *
 * @example List a cluster's databases and read its health
 * ```ts
 * import { createEmulator, createEnterpriseClient, DEFAULT_OPTIONS, fetchTransport, listBdbs } from "./mod.ts";
 *
 * const emulator = createEmulator(DEFAULT_OPTIONS);
 * const transport = fetchTransport((url, init) => Promise.resolve(emulator.enterprise.fetch(new Request(url, init))));
 * const cluster = createEnterpriseClient({ url: "https://cluster.test:9443", username: "admin@example.com", password: "demo-password" }, {
 *   transport,
 * });
 * const names = (await listBdbs(cluster)).map((bdb) => bdb.name);
 * if (names.length === 0) throw new Error("no databases");
 * ```
 *
 * @example Shrink a support package as it streams
 * ```ts
 * import { createOptimizer, packageStream } from "./mod.ts";
 *
 * // A 1 MiB package as a cluster makes one (the emulator's); a download's body works the same.
 * const download = packageStream({
 *   seed: 1,
 *   sizeMb: 1,
 *   scope: { kind: "cluster" },
 *   cluster: { name: "cluster.example.local", softwareVersion: "7.4.2" },
 *   nodes: [{ uid: 1, addr: "10.0.0.1" }],
 *   bdbs: [{ uid: 1, name: "cache" }],
 * });
 * const optimizer = createOptimizer({ logLines: 100 });
 * const bytes = await new Response(download.pipeThrough(optimizer)).bytes();
 * const stats = await optimizer.stats;
 * if (stats.bytesAfter !== bytes.length || stats.filesTruncated === 0) throw new Error("logs were cut");
 * ```
 *
 * @example Run a task kind of your own and serve the task API
 * ```ts
 * import { z } from "zod";
 * import { createApp, createMemoryStore, createService, defineTask, loadServerConfig } from "./mod.ts";
 *
 * const echo = defineTask({
 *   kind: "echo",
 *   input: z.object({ text: z.string() }),
 *   async run(ctx, input) {
 *     await ctx.token(input.text);
 *     return input.text;
 *   },
 * });
 * // The settings as the variables give them (here: the defaults), the store, and the kinds besides the built-in ones.
 * const service = createService(loadServerConfig({}), { store: createMemoryStore(), kinds: [echo] });
 * const app = createApp(service);
 * const created = await app.request("/tasks", {
 *   method: "POST",
 *   headers: { "content-type": "application/json" },
 *   body: JSON.stringify({ kind: "echo", input: { text: "hi" } }),
 * });
 * if (created.status !== 201) throw new Error(`${created.status}`);
 * await service.close();
 * ```
 *
 * @example Limit callers with the sliding-window log
 * ```ts
 * import { SlidingWindowLog } from "./mod.ts";
 *
 * const log = new SlidingWindowLog(() => Date.now());
 * const decisions = Array.from({ length: 11 }, () => log.hit("/api/x:alice", 10, 30_000).allowed);
 * if (decisions.at(-1) !== false) throw new Error("the 11th request in 30 s is refused");
 * ```
 *
 * @module
 */
export {
  type CloudAccess,
  type CloudClient,
  type CloudDatabase,
  type CloudTask,
  createCloudClient,
  createDatabase,
  createSubscription,
  deleteDatabase,
  getDatabase,
  getSubscription,
  listDatabases,
  listSubscriptions,
  listTasks,
  readThroughTask,
  updateDatabase,
  waitForTask,
} from "./lib/cloud/mod.ts";
export {
  type Bdb,
  createBdb,
  createEnterpriseClient,
  downloadDebuginfo,
  type EnterpriseAccess,
  type EnterpriseClient,
  getCluster,
  listBdbs,
  listNodes,
  summarizeHealth,
  waitForAction,
} from "./lib/enterprise/mod.ts";
export { clientSettings, fetchTransport, poll, type Transport } from "./lib/http/mod.ts";
export { StoreCtlError } from "./lib/errors/mod.ts";
export {
  createOptimizer,
  generateSupportPackage,
  optimizePackageFile,
  type Optimizer,
  type PackageResult,
  uploadPackage,
} from "./lib/support_package/mod.ts";
export { createMemoryStore, openStore, type Store, type StoreConfig } from "./lib/store/mod.ts";
export {
  createTaskRunner,
  defineTask,
  type TaskContext,
  type TaskDefinition,
  type TaskRunner,
} from "./lib/tasks/mod.ts";
export { SlidingWindowLog } from "./lib/ratelimit/mod.ts";
export {
  createApp,
  createService,
  loadServerConfig,
  type ServerConfig,
  type Service,
  type ServiceParts,
} from "./server/mod.ts";
export { createEmulator, DEFAULT_OPTIONS, type Emulator, type EmulatorOptions, packageStream } from "./emulator/mod.ts";
