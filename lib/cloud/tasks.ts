import { StoreCtlError } from "../errors/mod.ts";
import { abortableSleep } from "../http/mod.ts";
import type { CloudClient } from "./client.ts";

/** An asynchronous cloud operation, as `GET /tasks/{taskId}` shows it. */
export interface CloudTask {
  readonly taskId: string;
  readonly commandType?: string;
  readonly status: string;
  readonly description?: string;
  readonly timestamp?: string;
  readonly response?: {
    readonly resourceId?: number | string;
    readonly additionalResourceId?: number | string;
    readonly error?: { readonly type?: string; readonly status?: string; readonly description?: string };
  };
}

/** Statuses that end a task well, and badly (the spec's and those generic scripts test). */
export const TASK_SUCCEEDED: readonly string[] = ["processing-completed", "completed"];
export const TASK_FAILED: readonly string[] = ["processing-error", "failed"];

/** One task. */
export function getTask(client: CloudClient, taskId: string, signal?: AbortSignal): Promise<CloudTask> {
  return client.get<CloudTask>(`/tasks/${encodeURIComponent(taskId)}`, { signal });
}

/** Every task the account shows. */
export async function listTasks(client: CloudClient): Promise<CloudTask[]> {
  const body = await client.get<CloudTask[] | { tasks?: CloudTask[] }>("/tasks");
  return Array.isArray(body) ? body : body?.tasks ?? [];
}

/** How `waitForTask` polls. */
export interface WaitOptions {
  readonly signal?: AbortSignal;
  /** The first pause between polls; later ones grow by half up to `maxIntervalMs`. Default 1 s. */
  readonly intervalMs?: number;
  /** The longest pause, so a task that ends is noticed soon. Default 5 s. */
  readonly maxIntervalMs?: number;
  /** Give up after this long. Default 600 s. */
  readonly timeoutMs?: number;
  /** Called after every poll. */
  readonly onProgress?: (task: CloudTask, elapsedMs: number) => void;
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * Polls a task until it ends. Resolves with the finished task; a failed task is an `api` error
 * with the task's own description (`reason: "task_failed"`), running out of time a `timeout`
 * error (`reason: "task_timeout"`, `details.taskId`). Transient errors and 429s are retried by
 * the client underneath; an aborted `signal` rejects with its reason.
 *
 * @example
 * ```ts
 * import { createCloudClient, waitForTask } from "./mod.ts";
 * import { fetchTransport } from "../http/mod.ts";
 * const client = createCloudClient(
 *   { deployment: "cloud", apiKey: "k", apiSecret: "s", apiUrl: "https://api.example.com/v1", sources: { apiKey: "", apiSecret: "", apiUrl: "" } },
 *   { transport: fetchTransport(fetch), timeoutMs: 30_000 },
 * );
 * const task = await waitForTask(client, "a1b2", { onProgress: (t) => console.error(t.status) });
 * console.log(task.response?.resourceId);
 * ```
 */
export async function waitForTask(client: CloudClient, taskId: string, options: WaitOptions = {}): Promise<CloudTask> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  const timeoutMs = options.timeoutMs ?? 600_000;
  const maxIntervalMs = options.maxIntervalMs ?? 5_000;
  const started = now();
  for (let interval = options.intervalMs ?? 1_000;; interval = Math.min(interval * 1.5, maxIntervalMs)) {
    const task = await getTask(client, taskId, options.signal);
    const elapsed = now() - started;
    options.onProgress?.(task, elapsed);
    if (TASK_SUCCEEDED.includes(task.status)) return task;
    if (TASK_FAILED.includes(task.status)) {
      const description = task.response?.error?.description ?? task.description ?? "no description given";
      throw new StoreCtlError("api", `Task ${taskId} failed: ${description}`, {
        reason: "task_failed",
        details: { task },
      });
    }
    const left = timeoutMs - elapsed;
    if (left <= 0) {
      throw new StoreCtlError(
        "timeout",
        `Task ${taskId} did not finish within ${Math.round(timeoutMs / 1000)} s (last status: ${task.status})`,
        { reason: "task_timeout", details: { taskId } },
      );
    }
    await sleep(Math.min(interval, left), options.signal);
  }
}
