import {
  type EventLog,
  type Job,
  type StepOutcome,
  type StoreOutage,
  storeOutage,
  type TaskStep,
  type TaskStore,
  type WorkQueue,
} from "../store/mod.ts";
import { FINAL_STATUSES, type TaskRecord } from "./model.ts";
import { storeRetry } from "./store_retry.ts";
import { CONTROL_CHANNEL } from "./events.ts";
import { planLanes } from "./lanes.ts";
import {
  type SpawnedTask,
  TaskCancelledError,
  type TaskContext,
  type TaskDefinition,
  TaskFailedError,
  type TaskFieldError,
  TaskInputError,
  toResult,
} from "./define.ts";

/** What `submit()` takes: the body of `POST /tasks`. */
export interface SubmitRequest {
  readonly kind: string;
  readonly input?: unknown;
  readonly session_id?: string;
  readonly metadata?: Record<string, unknown>;
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
  readonly newId?: () => string;
  readonly log?: (line: string) => void;
  /** Logs store outages once each (share the server's); default: one of its own on `log`. */
  readonly outage?: StoreOutage;
  /**
   * How long a runner holds a root task without renewing (renewed every third of it while the task
   * runs). When its process dies, another takes the task over after this long. Default 30 s.
   * A store call of a running task that fails transiently is repeated with backoff for up to half
   * of it, so a store outage shorter than that neither fails nor restarts the task.
   */
  readonly leaseMs?: number;
  /** Runs of one task before it fails as lost (a hand-back or a reclaim starts the next). Default 3. */
  readonly maxAttempts?: number;
  /** How often an idle runner looks for work queued elsewhere or left by a dead runner. Default 1 s. */
  readonly pollMs?: number;
}

/** Submits, cancels, answers and removes tasks, and runs them in this process. */
export interface TaskRunner {
  /** The registered kinds. */
  readonly kinds: readonly string[];
  /** Validates and stores a task and queues it; throws {@link TaskInputError} for a bad kind or input. */
  submit(request: SubmitRequest): Promise<TaskRecord>;
  /** Cancels the task (and with `cascade` its descendants) wherever it runs. */
  cancel(taskId: string, cascade: boolean): Promise<{ found: boolean; cancelled_count: number }>;
  /** Answers an `input_required` task; refused (with its status) otherwise. */
  input(taskId: string, answer: unknown): Promise<StepOutcome>;
  /** Cancels, then removes the task, its descendants and their events; false when unknown. */
  remove(taskId: string): Promise<boolean>;
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
  const definitions = new Map(options.definitions.map((d) => [d.kind, d]));
  let turn = 0;
  const newId = options.newId ?? (() => crypto.randomUUID());
  const log = options.log ?? ((line: string) => console.error(line));
  // The runners poll every second: a store outage is two lines, not one a second.
  const outage = options.outage ?? storeOutage(log);
  const leaseMs = options.leaseMs ?? 30_000;
  const maxAttempts = options.maxAttempts ?? 3;
  // Each lane has a queue and a limit of its own: a full lane keeps no other waiting.
  const { laneOf, limits, unknownKinds } = planLanes(options.definitions, options);
  const running = new Map([...limits.keys()].map((lane) => [lane, 0]));
  for (const kind of unknownKinds) {
    log(
      `a concurrency limit names '${kind}', which is not a task kind; ignored (kinds: ${
        [...definitions.keys()].join(", ")
      })`,
    );
  }
  const retry = storeRetry({ budgetMs: leaseMs / 2 }, outage);
  const consumer = `runner-${newId()}`;
  const local = new Map<string, AbortController>();
  const inputWaiters = new Map<string, () => void>();
  const jobs = new Set<Promise<void>>();
  let closed = false;
  let pumping = false;
  let again = false;
  const control = new AbortController();
  const validate = (kind: string, input: unknown, field = "input"): TaskDefinition => {
    const definition = definitions.get(kind);
    if (!definition) {
      const known = [...definitions.keys()].join(", ");
      throw new TaskInputError(`Unknown task kind '${kind}'`, [
        { field: "kind", message: `Unknown task kind '${kind}'; use one of: ${known}` },
      ]);
    }
    const parsed = definition.input.safeParse(input ?? {});
    if (!parsed.success) {
      const errors: TaskFieldError[] = parsed.error.issues.map((i) => ({
        field: [field, ...i.path.map(String)].join("."),
        message: i.message,
      }));
      throw new TaskInputError(`Invalid input for task kind '${kind}'`, errors);
    }
    return definition;
  };

  /** Takes jobs while there is room. */
  const pump = async () => {
    if (pumping) return void (again = true);
    pumping = true;
    try {
      do {
        again = false;
        while (!closed) {
          // The lanes with room, starting at a different one each time: none is always asked last.
          const open = [...limits].filter(([lane, limit]) => running.get(lane)! < limit).map(([lane]) => lane);
          if (open.length === 0) break;
          const first = turn++ % open.length;
          const lanes = [...open.slice(first), ...open.slice(0, first)];
          const job = await queue.take(consumer, leaseMs, lanes).then((job) => (outage.answered(), job), (error) => {
            outage.failed("task queue", error as Error);
            return undefined;
          });
          if (!job) break;
          running.set(job.lane, (running.get(job.lane) ?? 0) + 1);
          const done = runJob(job).finally(() => {
            running.set(job.lane, running.get(job.lane)! - 1);
            jobs.delete(done);
            void pump();
          });
          jobs.add(done);
        }
      } while (again && !closed);
    } finally {
      pumping = false;
    }
  };

  const runJob = async (job: Job): Promise<void> => {
    try {
      if (job.reclaimed) return await reclaim(job);
      const lease = holdLease(job);
      let finished: boolean;
      try {
        finished = await startRoot(job);
      } finally {
        lease.abort();
      }
      if (!finished && closed) await retry(() => queue.release(consumer, job.id)); // handed back for another runner
      else await retry(() => queue.ack(job.id));
    } catch (error) {
      log(`task ${job.taskId}: ${(error as Error).message}`);
    }
  };

  /** Renews the job's lease every third of it until aborted; a renewal the store fails is repeated. */
  const holdLease = (job: Job): AbortController => {
    const held = new AbortController();
    void (async () => {
      while (!held.signal.aborted) {
        await pause(Math.max(10, leaseMs / 3), held.signal);
        if (held.signal.aborted) return;
        await retry(() => queue.renew(consumer, job.id), held.signal).catch((e) => {
          if (!held.signal.aborted) log(`task ${job.taskId}: lease not renewed: ${(e as Error).message}`);
        });
      }
    })();
    return held;
  };

  /**
   * Sends the steps of one run of a task one at a time, numbered (so a step repeated after a lost
   * reply applies once, see `TaskStep.id`), each repeated while the store fails transiently.
   */
  const stepper = (taskId: string) => {
    const run = newId();
    let n = 0;
    let tail: Promise<unknown> = Promise.resolve();
    return (step: TaskStep, signal?: AbortSignal): Promise<StepOutcome> => {
      const sent = tail.then(() => {
        const id = { run, n: ++n };
        return retry(() => tasks.step(taskId, { ...step, id }), signal);
      });
      tail = sent.catch(() => {});
      return sent;
    };
  };
  type Send = ReturnType<typeof stepper>;

  /** A job whose runner stopped: queue the next attempt, or fail the task when it had enough. */
  const reclaim = async (job: Job) => {
    const record = await retry(() => tasks.get(job.taskId));
    if (!record || FINAL_STATUSES.has(record.status)) return await retry(() => queue.ack(job.id));
    if (job.attempt >= maxAttempts) {
      const error = `The task's runner stopped ${job.attempt} times; giving up`;
      for (const child of await retry(() => tasks.children(job.taskId))) {
        await retry(() => tasks.cancel(child.task_id, true));
      }
      await stepper(job.taskId)({ to: "failed", error, event: { kind: "failed", payload: { error } } });
      return await retry(() => queue.ack(job.id));
    }
    log(`task ${job.taskId}: its runner stopped; queued attempt ${job.attempt + 1}`);
    await retry(() => queue.requeue(job.id, job.taskId, job.attempt + 1));
    again = true;
  };

  /** Runs a root task; false when it stopped without finishing (cancelled, or handed back). */
  const startRoot = async (job: Job): Promise<boolean> => {
    const record = await retry(() => tasks.get(job.taskId));
    if (!record || FINAL_STATUSES.has(record.status)) return true;
    const send = stepper(job.taskId);
    if (job.attempt > 1) {
      // The last attempt's children died with its runner: this attempt spawns its own.
      for (const child of await retry(() => tasks.children(job.taskId))) {
        await retry(() => tasks.remove(child.task_id));
      }
      if (record.status === "input_required") {
        await send({ to: "in_progress", from: ["input_required"], prompt: null });
      }
      const message = `restarted (attempt ${job.attempt}): the runner that had it stopped`;
      await send({
        update: { message, update_type: "retry" },
        event: { kind: "update", payload: { message, update_type: "retry" } },
      });
    }
    return await execute(job.taskId, send);
  };

  /** Runs a stored task to a final state; false when it stopped without one (cancelled, handed back). */
  const execute = async (taskId: string, send: Send = stepper(taskId)): Promise<boolean> => {
    const record = await retry(() => tasks.get(taskId));
    if (!record || record.status !== "in_progress") return true;
    // close() has already stopped the tasks it runs: one taken meanwhile is handed back, not started.
    if (closed) return false;
    const controller = new AbortController();
    local.set(taskId, controller);
    try {
      const definition = validate(record.kind, record.input);
      const input = definition.input.parse(record.input ?? {});
      const value = await definition.run(context(record, controller, send), input);
      if (controller.signal.aborted) return false;
      const result = toResult(value);
      await send({
        to: "done",
        result,
        input: definition.inputWhenDone?.(input),
        event: { kind: "done", payload: { result } },
      }, controller.signal);
      return true;
    } catch (error) {
      if (controller.signal.aborted || error instanceof TaskCancelledError) return false;
      const message = error instanceof Error ? error.message : String(error);
      await send({ to: "failed", error: message, event: { kind: "failed", payload: { error: message } } })
        .catch((e) => log(`task ${taskId}: cannot record its failure (${message}): ${(e as Error).message}`));
      return true;
    } finally {
      local.delete(taskId);
    }
  };

  const context = (record: TaskRecord, controller: AbortController, send: Send): TaskContext => {
    const taskId = record.task_id;
    let spawned = 0;
    const step = async (s: TaskStep) => {
      if (controller.signal.aborted) throw new TaskCancelledError(taskId);
      const outcome = await send(s, controller.signal);
      if (!outcome.ok) {
        controller.abort();
        throw new TaskCancelledError(taskId);
      }
    };
    return {
      taskId,
      sessionId: record.session_id,
      signal: controller.signal,
      update: (message, type = "info") =>
        step({
          update: { message, update_type: type },
          event: { kind: "update", payload: { message, update_type: type } },
        }),
      token: (text) => step({ event: { kind: "token", payload: { message: text } } }),
      spawn(kind, input, spawnOptions = {}): SpawnedTask {
        const spawnKey = spawnOptions.key ?? `child-${spawned}`;
        spawned++;
        const childId = newId();
        const result = (async () => {
          validate(kind, input);
          if (controller.signal.aborted) throw new TaskCancelledError(taskId);
          const child = {
            task_id: childId,
            kind,
            session_id: record.session_id,
            metadata: { message: `${kind} ${spawnKey} of ${taskId}` },
            input: input ?? {},
            parent_id: taskId,
            spawn_key: spawnKey,
          };
          // Refused when the parent is gone, or when a repeated create finds the child its lost reply made.
          const created = await retry(() => tasks.create(child), controller.signal) ||
            (await retry(() => tasks.get(childId), controller.signal))?.parent_id === taskId;
          if (!created) throw new TaskCancelledError(taskId);
          await execute(childId);
          const done = await retry(() => tasks.get(childId));
          if (done?.status === "done") return done.result ?? {};
          const status = done?.status === "failed" ? "failed" : "cancelled";
          const why = status === "failed" ? `failed: ${done?.error}` : "was cancelled";
          throw new TaskFailedError(childId, status, `Sub-task ${spawnKey} (${childId}) ${why}`);
        })();
        result.catch(() => {}); // a child nobody awaits must not be an unhandled rejection
        return { taskId: childId, spawnKey, then: (ok, fail) => result.then(ok, fail) };
      },
      async requestInput(prompt) {
        await step({
          to: "input_required",
          from: ["in_progress"],
          prompt,
          event: { kind: "input_required", payload: { prompt } },
        });
        for (;;) {
          let wake = () => {};
          const woken = new Promise<void>((resolve) => wake = resolve);
          inputWaiters.set(taskId, wake);
          controller.signal.addEventListener("abort", wake, { once: true });
          const timer = setTimeout(wake, 1_000); // a missed control event costs at most a second
          try {
            const now = await retry(() => tasks.get(taskId), controller.signal);
            if (!now || controller.signal.aborted) throw new TaskCancelledError(taskId);
            if (now.status === "in_progress") return now.answer;
            if (now.status !== "input_required") throw new TaskCancelledError(taskId);
            await woken;
          } finally {
            clearTimeout(timer);
            controller.signal.removeEventListener("abort", wake);
            inputWaiters.delete(taskId);
          }
        }
      },
    };
  };

  const poll = setInterval(() => void pump(), options.pollMs ?? 1_000);

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
            void pump();
          }
        }
      } catch (error) {
        if (control.signal.aborted) return;
        outage.failed("task control channel", error as Error); // followed again in 1 s
        await new Promise((r) => setTimeout(r, 1_000));
      }
    }
  })();

  const cancel = async (taskId: string, cascade: boolean) => {
    const { found, cancelled } = await tasks.cancel(taskId, cascade);
    for (const id of cancelled) local.get(id)?.abort();
    if (cancelled.length > 0) {
      await events.append(CONTROL_CHANNEL, "cancel", { task_id: taskId, task_ids: cancelled }, 1_000);
    }
    return { found, cancelled_count: cancelled.length };
  };

  return {
    kinds: [...definitions.keys()],
    async submit(request) {
      validate(request.kind, request.input);
      const taskId = newId();
      await tasks.create({
        task_id: taskId,
        kind: request.kind,
        session_id: request.session_id ?? newId(),
        metadata: request.metadata ?? { message: `${request.kind} task` },
        input: request.input ?? {},
      });
      const record = (await tasks.get(taskId))!;
      await queue.push(taskId, 1, laneOf(request.kind));
      void pump();
      // Runners in other processes learn of it now rather than at their next poll.
      await events.append(CONTROL_CHANNEL, "queued", { task_id: taskId }, 1_000);
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
        await events.append(CONTROL_CHANNEL, "input", { task_id: taskId }, 1_000);
      }
      return outcome;
    },
    async remove(taskId) {
      const { found } = await cancel(taskId, true);
      if (!found) return false;
      await tasks.remove(taskId);
      return true;
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(poll);
      for (const controller of local.values()) controller.abort();
      await Promise.allSettled([...jobs]);
      control.abort();
    },
  };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
