import type { Json } from "../fixture.ts";

/** The error a task ends with when its request cannot be carried out. */
export interface TaskError {
  readonly type: string;
  readonly status: string;
  readonly description: string;
}

/** What a caller submits: the work, run when the task completes, or the reason it fails. */
export interface TaskRequest {
  /** As the real API names it: `databaseCreateRequest`, `peeringListRequest`, … */
  readonly commandType: string;
  readonly resourceId?: number;
  readonly additionalResourceId?: number;
  readonly error?: TaskError;
  readonly apply?: () => void;
  /** What a finished read task hands back as `response.resource` (networking reads). */
  readonly resource?: () => Json;
}

interface TaskRecord extends TaskRequest {
  readonly taskId: string;
  readonly createdMs: number;
  applied: boolean;
  /** Reads answered 404 so far (the `task-404` quirk). */
  missedReads: number;
}

/** How many reads of a new task answer 404 under the `task-404` quirk. */
export const NEW_TASK_404_READS = 3;

const DESCRIPTIONS = {
  queued: "Task request received and is being queued for processing.",
  completed: "Request processing completed successfully and its resources are now being provisioned / de-provisioned.",
  failed: "Task request failed during processing. See error information for failure details.",
};

/**
 * Cloud tasks, as the real API runs them: each moves `received → initialized →
 * processing-in-progress → processing-completed` (or `processing-error`) over `delayMs`, judged
 * from the clock at each read. A task's effect is applied once, by `settle()`, when its time has
 * come, in submission order. With `unseenReads`, a new task answers 404 to its first reads, as a
 * task the real API accepted a moment ago may.
 */
export class TaskBook {
  readonly #tasks = new Map<string, TaskRecord>();
  readonly #delayMs: number;
  readonly #now: () => number;
  readonly #newId: () => string;
  readonly #unseenReads: number;

  constructor(delayMs: number, now: () => number, newId: () => string, unseenReads = 0) {
    this.#delayMs = delayMs;
    this.#now = now;
    this.#newId = newId;
    this.#unseenReads = unseenReads;
  }

  /** Queues a task and returns its id. */
  submit(request: TaskRequest): string {
    const taskId = this.#newId();
    this.#tasks.set(taskId, { ...request, taskId, createdMs: this.#now(), applied: false, missedReads: 0 });
    return taskId;
  }

  /** Applies the effects of every task whose delay has passed. */
  settle(): void {
    const now = this.#now();
    for (const task of this.#tasks.values()) {
      if (task.applied || now - task.createdMs < this.#delayMs) continue;
      task.applied = true;
      if (!task.error) task.apply?.();
    }
  }

  /** The task as `GET /tasks/{id}` shows it, or undefined (also while a new task is not yet visible). */
  view(taskId: string, baseUrl: string): Json | undefined {
    const task = this.#tasks.get(taskId);
    if (!task || task.missedReads++ < this.#unseenReads) return undefined;
    return this.#render(task, baseUrl, this.#now() - task.createdMs);
  }

  /** The task as the request that submitted it answers: always `received`. */
  receipt(taskId: string, baseUrl: string): Json {
    return this.#render(this.#tasks.get(taskId)!, baseUrl, -Infinity);
  }

  /** All tasks, newest first. */
  list(baseUrl: string): Json[] {
    return [...this.#tasks.values()].reverse().map((t) => this.#render(t, baseUrl, this.#now() - t.createdMs));
  }

  #render(task: TaskRecord, baseUrl: string, elapsed: number): Json {
    const done = elapsed >= this.#delayMs;
    const status = done
      ? (task.error ? "processing-error" : "processing-completed")
      : elapsed >= this.#delayMs / 2
      ? "processing-in-progress"
      : elapsed >= this.#delayMs / 4
      ? "initialized"
      : "received";
    const view: Json = {
      taskId: task.taskId,
      commandType: task.commandType,
      status,
      description: done ? (task.error ? DESCRIPTIONS.failed : DESCRIPTIONS.completed) : DESCRIPTIONS.queued,
      timestamp: new Date(done ? task.createdMs + this.#delayMs : task.createdMs).toISOString(),
      response: done ? this.#response(task) : {},
      links: [{ href: `${baseUrl}/tasks/${task.taskId}`, type: "GET", rel: elapsed < 0 ? "task" : "self" }],
    };
    // The receipt a request answers with has no response yet.
    if (elapsed < 0) delete view.response;
    return view;
  }

  #response(task: TaskRecord): Json {
    if (task.error) return { error: task.error };
    return {
      ...(task.resourceId !== undefined && { resourceId: task.resourceId }),
      ...(task.additionalResourceId !== undefined && { additionalResourceId: task.additionalResourceId }),
      ...(task.resource && { resource: task.resource() }),
    };
  }
}
