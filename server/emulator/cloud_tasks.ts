import type { Json } from "./fixture.ts";

/** The error a task ends with when its request cannot be carried out. */
export interface TaskError {
  readonly type: string;
  readonly status: string;
  readonly description: string;
}

/** What a caller submits: the work, run when the task completes, or the reason it fails. */
export interface TaskRequest {
  readonly commandType: string;
  readonly description: string;
  readonly resourceId?: number;
  readonly additionalResourceId?: number;
  readonly error?: TaskError;
  readonly apply?: () => void;
}

interface TaskRecord extends TaskRequest {
  readonly taskId: string;
  readonly createdMs: number;
  applied: boolean;
}

/**
 * Cloud tasks: each moves `received → processing-in-progress → processing-completed` (or
 * `processing-error`) over `delayMs`, judged from the clock at each read. A task's effect is
 * applied once, by `settle()`, when its time has come, in submission order.
 */
export class TaskBook {
  readonly #tasks = new Map<string, TaskRecord>();
  readonly #delayMs: number;
  readonly #now: () => number;
  readonly #newId: () => string;

  constructor(delayMs: number, now: () => number, newId: () => string) {
    this.#delayMs = delayMs;
    this.#now = now;
    this.#newId = newId;
  }

  /** Queues a task and returns its id. */
  submit(request: TaskRequest): string {
    const taskId = this.#newId();
    this.#tasks.set(taskId, { ...request, taskId, createdMs: this.#now(), applied: false });
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

  /** The task as `GET /tasks/{id}` shows it, or undefined. */
  view(taskId: string, baseUrl: string): Json | undefined {
    const task = this.#tasks.get(taskId);
    return task && this.#render(task, baseUrl, this.#now() - task.createdMs);
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
      : elapsed >= this.#delayMs / 4
      ? "processing-in-progress"
      : "received";
    const view: Json = {
      taskId: task.taskId,
      commandType: task.commandType,
      status,
      description: done
        ? (task.error ? "Task request failed during processing." : "Request processing completed successfully.")
        : task.description,
      timestamp: new Date(done ? task.createdMs + this.#delayMs : task.createdMs).toISOString(),
      links: [{ href: `${baseUrl}/tasks/${task.taskId}`, type: "GET", rel: "self" }],
    };
    if (done) {
      view.response = task.error ? { error: task.error } : {
        resourceId: task.resourceId,
        ...(task.additionalResourceId !== undefined && { additionalResourceId: task.additionalResourceId }),
      };
    }
    return view;
  }
}
