/**
 * The key-value store port and its adapters: memory (embedded default), Redis over TCP, and
 * Upstash REST for edge runtimes.
 *
 * @example
 * ```ts
 * import { openStore } from "./mod.ts";
 * const store = await openStore({ url: "redis://127.0.0.1:6379", prefix: "storectl:" });
 * const { allowed } = await store.hitSlidingWindow("/api/RateLimited/sliding:alice", 10, 30_000);
 * ```
 *
 * @module
 */
export { DEFAULT_STORE_TIMEOUT_MS, type Store, StoreUnavailableError } from "./store.ts";
export { createMemoryStore } from "./memory.ts";
export { observeStore, type StoreCallObserver } from "./observed.ts";
export { checkTenant, TENANT_NAME } from "./tenant.ts";
export { type StoreOutage, storeOutage } from "./outage.ts";
export { openStore, type StoreConfig } from "./create.ts";
export { type ClusterUrl, isClusterUrl, parseClusterUrl } from "./cluster_url.ts";
export { createMemoryTaskPorts } from "./tasks/memory.ts";
export { chunkId, createMemoryDocumentStore } from "./documents/memory.ts";
export type {
  ChunkRecord,
  DocumentChange,
  DocumentRecord,
  DocumentStore,
  NewDocument,
  PipelineStatus,
  PutOutcome,
} from "./documents/port.ts";
export type { IdempotencyRecord, IdempotencyStore } from "./idempotency/port.ts";
export { createMemoryIdempotencyStore } from "./idempotency/memory.ts";
export type { Attempt, Delivery, NewDelivery, Outcome, Webhook, WebhookStore } from "./webhooks/port.ts";
export { WEBHOOK_LIMITS } from "./webhooks/port.ts";
export { createMemoryWebhookStore } from "./webhooks/memory.ts";
// The ports' vocabulary; the task model's names (statuses, records, channels) are defined in lib/tasks.
export {
  DEFAULT_LANE,
  type EventLog,
  type EventWatcher,
  FINAL_STATUSES,
  GLOBAL_CHANNEL,
  type Job,
  type LaneBacklog,
  type ListedTask,
  type NewTask,
  sessionChannel,
  type SharedChannels,
  type StepId,
  type StepOutcome,
  type StoredEvent,
  TASK_STATUSES,
  taskChannel,
  type TaskPage,
  type TaskPorts,
  type TaskQuery,
  type TaskRecord,
  type TaskStatus,
  type TaskStep,
  type TaskStore,
  type TaskUpdate,
  type TaskUsage,
  type WorkQueue,
} from "../task_model/ports.ts";
