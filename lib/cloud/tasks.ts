import { StoreCtlError } from "../errors/mod.ts";
import { isTransient, poll, type PollOptions } from "../http/mod.ts";
import type { CloudClient } from "./client.ts";
import { type ListOptions, readList } from "./paging.ts";

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
    /** What a finished read task hands back (networking reads). */
    readonly resource?: unknown;
    readonly error?: { readonly type?: string; readonly status?: string; readonly description?: string };
  };
}

/** Whether an answer is a task reference (`{taskId, status, …}`) rather than the data itself. */
export function isTaskReference(body: unknown): body is Pick<CloudTask, "taskId" | "status"> {
  const b = body as { taskId?: unknown; status?: unknown } | null;
  return typeof b?.taskId === "string" && typeof b.status === "string";
}

/** Statuses that end a task well, and badly (the specification's and those generic scripts test). */
export const TASK_SUCCEEDED: readonly string[] = ["processing-completed", "completed"];
export const TASK_FAILED: readonly string[] = ["processing-error", "failed"];

/** One task. */
export function getTask(client: CloudClient, taskId: string, signal?: AbortSignal): Promise<CloudTask> {
  return client.get<CloudTask>(`/tasks/${encodeURIComponent(taskId)}`, { signal });
}

/** Every task the account shows, in one read (the API does not page tasks). */
export function listTasks(client: CloudClient, options?: ListOptions): Promise<CloudTask[]> {
  return readList(
    client,
    "/tasks",
    (body) => Array.isArray(body) ? body as CloudTask[] : (body as { tasks?: CloudTask[] })?.tasks,
    options,
  );
}

/** How `waitForTask` polls (see `PollOptions`), and what it reports. */
export interface WaitOptions extends PollOptions {
  /**
   * How long a task may answer 404 before that counts: the API may not show a task accepted a
   * moment ago (the official Go client waits out five 404s). Default 10 s.
   */
  readonly notFoundGraceMs?: number;
  /**
   * The caller saw the API accept the task (it started it a moment ago): a task still not found
   * is then said to be missing "after it was accepted". Default false: an id from elsewhere may
   * simply be wrong.
   */
  readonly accepted?: boolean;
  /** Called after every poll. */
  readonly onProgress?: (task: CloudTask, elapsedMs: number) => void;
  /** Called when a poll failed for a passing reason (429, 5xx, network, a 404 in the grace) and polling goes on. */
  readonly onPollError?: (error: StoreCtlError, elapsedMs: number) => void;
}

/**
 * Reads a resource the API may hand back through a task: real networking reads answer 202 with a
 * task whose finished `response.resource` holds the data. A body that is not a task reference is
 * the data itself. `wait` follows the task (default `waitForTask` with its defaults).
 *
 * @example
 * ```ts
 * import { createCloudClient, readThroughTask } from "./mod.ts";
 * const client = createCloudClient({ apiKey: "k", apiSecret: "s", apiUrl: "https://api.example.com/v1" });
 * const { peerings } = await readThroughTask(client, "/subscriptions/1/peerings") as { peerings: unknown[] };
 * ```
 */
export async function readThroughTask(
  client: CloudClient,
  path: string,
  wait: (taskId: string) => Promise<CloudTask> = (taskId) => waitForTask(client, taskId, { accepted: true }),
): Promise<unknown> {
  const body = await client.get(path);
  return isTaskReference(body) ? (await wait(body.taskId)).response?.resource : body;
}

/**
 * Polls a task until it ends. Resolves with the finished task; a failed task is an `api` error
 * with the task's own description (`reason: "task_failed"`), running out of time a `timeout`
 * error (`reason: "task_timeout"`, `details.taskId`). The client underneath retries 429s (after
 * `Retry-After`) and transient errors; a poll that still fails that way is tried again at the
 * next interval. A task not seen yet may answer 404 for `notFoundGraceMs` (then `not_found`,
 * `reason: "task_not_found"`, said to come after the task was `accepted` when the caller saw
 * that); a 404 once it was seen, or an authentication error, ends the wait
 * at once. An aborted `signal` rejects with its reason.
 *
 * @example
 * ```ts
 * import { createCloudClient, waitForTask } from "./mod.ts";
 * const client = createCloudClient({ apiKey: "k", apiSecret: "s", apiUrl: "https://api.example.com/v1" });
 * const task = await waitForTask(client, "a1b2", { onProgress: (t) => console.error(t.status) });
 * console.log(task.response?.resourceId);
 * ```
 */
export function waitForTask(client: CloudClient, taskId: string, options: WaitOptions = {}): Promise<CloudTask> {
  const graceMs = options.notFoundGraceMs ?? 10_000;
  let last = "not yet seen";
  return poll<CloudTask>({
    async read(signal, elapsedMs) {
      const task = await getTask(client, taskId, signal);
      last = task.status;
      options.onProgress?.(task, elapsedMs);
      if (TASK_SUCCEEDED.includes(task.status)) return task;
      if (TASK_FAILED.includes(task.status)) {
        const description = task.response?.error?.description ?? task.description ?? "no description given";
        throw new StoreCtlError("api", `Task ${taskId} failed: ${description}`, {
          reason: "task_failed",
          details: { task },
        });
      }
      return undefined;
    },
    failed(error, elapsedMs) {
      const unseen = error instanceof StoreCtlError && error.code === "not_found" && last === "not yet seen";
      if (unseen && elapsedMs >= graceMs) {
        const after = options.accepted ? " after it was accepted" : "";
        throw new StoreCtlError(
          "not_found",
          `Task ${taskId} was not found: the API answered 404 for ${Math.round(graceMs / 1000)} s${after}`,
          { status: 404, reason: "task_not_found", details: { taskId, accepted: options.accepted === true } },
        );
      }
      if (!unseen && !isTransient(error)) throw error;
      if (!unseen) last = `poll failed: ${(error as Error).message}`;
      options.onPollError?.(error as StoreCtlError, elapsedMs);
    },
    timedOut: (timeoutMs) =>
      new StoreCtlError(
        "timeout",
        `Task ${taskId} did not finish within ${Math.round(timeoutMs / 1000)} s (last status: ${last})`,
        { reason: "task_timeout", details: { taskId } },
      ),
  }, options);
}
