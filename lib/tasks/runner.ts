import {
  type EventLog,
  type LaneBacklog,
  type StepOutcome,
  type StoreOutage,
  storeOutage,
  type TaskStore,
  type WorkQueue,
} from "../store/mod.ts";
import type { TaskDefinition } from "./define.ts";
import { CONTROL_CHANNEL } from "../task_model/events.ts";
import { createExecution, type TaskObserver } from "./execution.ts";
import { taskKinds } from "./kinds.ts";
import { planLanes } from "./lanes.ts";
import { checkFootprint, DEFAULT_TASK_LIMITS, type TaskLimits, UNKNOWN_FOOTPRINT } from "./limits.ts";
import { quotaGate } from "./quota.ts";
import type { TaskRecord } from "../task_model/model.ts";
import { createQueueWorker } from "./queue_worker.ts";
import { storeRetry } from "./store_retry.ts";
import { sleep } from "../time/mod.ts";
import { activeTrace } from "../tracing/mod.ts";

/** What `submit()` takes: the body of `POST /tasks`. */
export interface SubmitRequest {
  readonly kind: string;
  readonly input?: unknown;
  readonly session_id?: string;
  readonly metadata?: Record<string, unknown>;
  /** The task's id, when the caller needs it first (a webhook of the task); from `tasks.newRootId(session_id)`. */
  readonly task_id?: string;
}

/** What a runner is built from. */
export interface TaskRunnerOptions {
  readonly store: { readonly tasks: TaskStore; readonly events: EventLog; readonly queue: WorkQueue };
  readonly definitions: readonly TaskDefinition[];
  /**
   * Root tasks of the default lane (`tasks`) run at once in this process; children run within
   * their root's slot. Default 256 (`DEFAULT_CONCURRENCY`): agent tasks mostly wait (on a model,
   * on input, on timers), so hundreds cost little more than a few.
   */
  readonly concurrency?: number;
  /**
   * Limits of the other lanes that definitions name (see `TaskDefinition.lane`); a lane left out
   * runs 2 (`DEFAULT_LANE_CONCURRENCY`) at once. The `pipelines` lane is `PIPELINE_CONCURRENCY`.
   */
  readonly lanes?: Readonly<Record<string, number>>;
  /**
   * Per-kind limits: each kind named runs in a lane of its own (`kind:<kind>`) with this many at
   * once, apart from the lane it would otherwise share (`TASK_KIND_CONCURRENCY`).
   */
  readonly kindConcurrency?: Readonly<Record<string, number>>;
  /** Makes the ids of tasks, runs and sessions. Default: random UUIDs, root tasks' from the store (`newRootId`). */
  readonly newId?: () => string;
  readonly log?: (line: string) => void;
  /** Logs store outages once each (share the server's); default: one of its own on `log`. */
  readonly outage?: StoreOutage;
  /** Told of each task submitted here and each task that ends here (metrics). */
  readonly observer?: TaskObserver;
  /**
   * How long a runner holds a root task without renewing (renewed every third of it while the task
   * runs). When its process dies, another takes the task over after this long. Default 30 s.
   * A store call of a running task that fails transiently is repeated with backoff for up to half
   * of it, so a store outage shorter than that neither fails nor restarts the task.
   */
  readonly leaseMs?: number;
  /**
   * What one request may make and what this store (one tenant's view) may keep: a request past a
   * tree limit is refused with a {@link TaskInputError}, one past a quota with a `TaskQuotaError`,
   * before anything is stored; a run is stopped at the tree limits. Default {@link DEFAULT_TASK_LIMITS}.
   */
  readonly limits?: TaskLimits;
  /** Runs of one task before it fails as lost (a hand-back or a reclaim starts the next). Default 3. */
  readonly maxAttempts?: number;
  /**
   * How often a runner looks for work queued elsewhere or left by a dead runner. Default 1 s.
   * While it finds none, each lookForWork doubles the wait, up to 8 × `pollMs`; work found, or news of
   * work queued, brings it back to `pollMs`.
   */
  readonly pollMs?: number;
}

/** Submits, cancels, answers and removes tasks, and runs them in this process. */
export interface TaskRunner {
  /** The registered kinds. */
  readonly kinds: readonly string[];
  /**
   * Validates and stores a task and queues it; throws {@link TaskInputError} for a bad kind or
   * input or one past a tree limit, a `TaskQuotaError` when the store is over a quota.
   */
  submit(request: SubmitRequest): Promise<TaskRecord>;
  /** Cancels the task (and with `cascade` its descendants) wherever it runs. */
  cancel(taskId: string, cascade: boolean): Promise<{ found: boolean; cancelled_count: number }>;
  /** Answers an `input_required` task; refused (with its status) otherwise. */
  input(taskId: string, answer: unknown): Promise<StepOutcome>;
  /** Cancels, then removes the task, its descendants and their events; false when unknown. */
  remove(taskId: string): Promise<boolean>;
  /** What waits in each lane of its kinds: root tasks no runner has taken yet (metrics). */
  backlog(): Promise<LaneBacklog[]>;
  /**
   * Stops taking work, hands the root tasks it runs back to the queue (another runner restarts
   * them at once), and ends its followers.
   */
  close(): Promise<void>;
}

/**
 * The in-process task runner over the store's `tasks` and `events` ports.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from "../store/mod.ts";
 * import { createTaskRunner, demoTask } from "./mod.ts";
 * const runner = createTaskRunner({ store: createMemoryStore(), definitions: [demoTask] });
 * const task = await runner.submit({ kind: "demo", input: { tokens: ["Hello", " world"] } });
 * ```
 */
export function createTaskRunner(options: TaskRunnerOptions): TaskRunner {
  const { tasks, events, queue } = options.store;
  const kinds = taskKinds(options.definitions);
  const newId = options.newId ?? (() => crypto.randomUUID());
  const log = options.log ?? ((line: string) => console.error(line));
  // The runners poll every second: a store outage is two lines, not one a second.
  const outage = options.outage ?? storeOutage(log);
  const leaseMs = options.leaseMs ?? 30_000;
  const maxAttempts = options.maxAttempts ?? 3;
  const taskLimits = options.limits ?? DEFAULT_TASK_LIMITS;
  const quotas = quotaGate(tasks, taskLimits);
  // Each lane has a queue and a limit of its own: a full lane keeps no other waiting.
  const { laneOf, limits, unknownKinds } = planLanes(options.definitions, options);
  for (const kind of unknownKinds) {
    log(
      `a concurrency limit names '${kind}', which is not a task kind; ignored (kinds: ${kinds.names.join(", ")})`,
    );
  }
  const retry = storeRetry({ budgetMs: leaseMs / 2 }, outage, { retried: options.observer?.storeRetried });
  const consumer = `runner-${newId()}`;
  const local = new Map<string, AbortController>();
  const inputWaiters = new Map<string, () => void>();
  let closed = false;
  const control = new AbortController();
  const execution = createExecution({
    tasks,
    retry,
    newId,
    log,
    kinds,
    limits: taskLimits,
    local,
    inputWaiters,
    isClosed: () => closed,
    observer: options.observer,
  });
  // Runners in other processes learn of news now rather than at their next lookForWork (for work) or check (for a cancel
  // or an answer, which the store holds already): a notice that fails is no failure of what it tells.
  const notify = (kind: string, data: Record<string, unknown>) =>
    events.append(CONTROL_CHANNEL, kind, data, 1_000).then(() => {}, () => {});
  const announce = (taskId: string) => notify("queued", { task_id: taskId });
  const worker = createQueueWorker({
    queue,
    tasks,
    retry,
    log,
    outage,
    consumer,
    leaseMs,
    maxAttempts,
    limits,
    execution,
    announce,
    isClosed: () => closed,
    observer: options.observer,
  });
  const takeWork = worker.takeWork;

  // An idle runner looks less often (many tenants' runners on one store cost little while nothing happens); the
  // control channel's news of new work brings it back at once, so the polls only catch what that news missed.
  const pollMs = options.pollMs ?? 1_000;
  let waitMs = pollMs;
  let poll: ReturnType<typeof setTimeout> | undefined;
  const lookForWork = async () => {
    const idle = await takeWork();
    waitMs = idle ? Math.min(waitMs * 2, 8 * pollMs) : pollMs;
    if (!closed) poll = setTimeout(lookForWork, waitMs);
  };
  poll = setTimeout(lookForWork, pollMs);
  const takeWorkNow = () => {
    waitMs = pollMs;
    return takeWork();
  };

  // Cancels, answers and new work given to another process reach this one through the control channel.
  void (async () => {
    while (!control.signal.aborted) {
      try {
        const after = await events.last(CONTROL_CHANNEL);
        outage.answered();
        for await (const event of events.follow(CONTROL_CHANNEL, after, control.signal)) {
          if (event.kind === "cancel") {
            for (const id of event.data.task_ids as string[]) local.get(id)?.abort();
          } else if (event.kind === "input") {
            inputWaiters.get(String(event.data.task_id))?.();
          } else if (event.kind === "queued") {
            void takeWorkNow();
          }
        }
      } catch (error) {
        if (control.signal.aborted) return;
        outage.failed("task control channel", error as Error); // followed again in 1 s
        await sleep(1_000, control.signal).catch(() => {});
      }
    }
  })();

  const cancel = async (taskId: string, cascade: boolean) => {
    const { found, cancelled } = await tasks.cancel(taskId, cascade);
    for (const id of cancelled) local.get(id)?.abort();
    if (cancelled.length > 0) {
      await notify("cancel", { task_id: taskId, task_ids: cancelled });
    }
    return { found, cancelled_count: cancelled.length };
  };

  return {
    kinds: kinds.names,
    async submit(request) {
      const definition = kinds.validate(request.kind, request.input);
      const footprint = definition.footprint?.(definition.input.parse(request.input ?? {})) ?? UNKNOWN_FOOTPRINT;
      checkFootprint(request.kind, footprint, taskLimits);
      await quotas.admit(footprint);
      const sessionId = request.session_id ?? newId();
      const taskId = request.task_id ?? options.newId?.() ?? tasks.newRootId(sessionId);
      await tasks.create({
        task_id: taskId,
        kind: request.kind,
        session_id: sessionId,
        metadata: request.metadata ?? { message: `${request.kind} task` },
        input: request.input ?? {},
        lane: laneOf(request.kind),
        trace: activeTrace(),
      });
      options.observer?.submitted(request.kind);
      // Stored and queued, so it will run: a failed read must not tell the caller otherwise.
      const record = (await retry(() => tasks.get(taskId)))!;
      // Others are told only when this runner did not take it: their takes would find nothing (on a cluster, a
      // script per partition each).
      void takeWorkNow().catch(() => false).then(() => worker.holds(taskId) ? undefined : announce(taskId));
      return record;
    },
    cancel,
    async input(taskId, answer) {
      const outcome = await tasks.step(taskId, {
        to: "in_progress",
        from: ["input_required"],
        prompt: null,
        answer,
        update: { message: "input received", update_type: "input" },
        event: { kind: "update", payload: { message: "input received", update_type: "input" } },
      });
      if (outcome.ok) {
        inputWaiters.get(taskId)?.();
        await notify("input", { task_id: taskId });
      }
      return outcome;
    },
    async remove(taskId) {
      const { found } = await cancel(taskId, true);
      if (!found) return false;
      await tasks.remove(taskId);
      return true;
    },
    backlog: () => queue.backlog([...limits.keys()]),
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(poll);
      for (const controller of local.values()) controller.abort();
      await worker.settled();
      control.abort();
    },
  };
}
