/**
 * What one request may make, and what one tenant may keep: the limits `submit()` checks a
 * request's footprint against before anything is stored, and the budget that holds a running
 * tree to the same limits (for kinds that cannot say their footprint up front).
 *
 * @module
 */
import { StoreCtlError } from "../errors/mod.ts";
import { TaskInputError } from "./define.ts";

/**
 * The limits of one request (a task tree) and the quotas of one tenant (a store view; running
 * open, the whole store). The names in parentheses are the service's settings.
 */
export interface TaskLimits {
  /** Tasks in one tree, its root included (`TASK_MAX_TREE_TASKS`). */
  readonly treeTasks: number;
  /** Events on one task's channel in a run, its final event and its children's `subtask_*` included (`TASK_MAX_EVENTS`). */
  readonly taskEvents: number;
  /** Events on the channels of one tree's tasks in a run (`TASK_MAX_TREE_EVENTS`). */
  readonly treeEvents: number;
  /** Unfinished (`in_progress`, `input_required`) tasks of a tenant (`TENANT_MAX_LIVE_TASKS`). */
  readonly liveTasks: number;
  /** Tasks a tenant keeps, finished ones included until deleted or retired (`TENANT_MAX_STORED_TASKS`). */
  readonly storedTasks: number;
  /** Events on the channels of a tenant's tasks (`TENANT_MAX_STORED_EVENTS`). */
  readonly storedEvents: number;
}

/**
 * The defaults: a tree of 100 tasks, 50,000 events per task (a 25,000-document pipeline run, a
 * long generated answer), 100,000 per tree; per tenant 1,000 unfinished tasks, 10,000 kept and
 * 500,000 events kept (measured with their session copies: about 0.95 KB an event in the memory
 * store's process, 0.2 KB in Redis, so about 0.5 GB and 0.1 GB).
 */
export const DEFAULT_TASK_LIMITS: TaskLimits = {
  treeTasks: 100,
  taskEvents: 50_000,
  treeEvents: 100_000,
  liveTasks: 1_000,
  storedTasks: 10_000,
  storedEvents: 500_000,
};

/** What a request will store at most, as its kind works it out from the input (see `TaskDefinition.footprint`). */
export interface TaskFootprint {
  /** Tasks of the tree, the root included. */
  readonly tasks: number;
  /** Events on the busiest task's channel. */
  readonly taskEvents: number;
  /** Events on all the tree's task channels. */
  readonly events: number;
}

/** The footprint of a kind that does not say: one task and its final event; the run's budget holds the rest. */
export const UNKNOWN_FOOTPRINT: TaskFootprint = { tasks: 1, taskEvents: 1, events: 1 };

const count = (n: number) => n.toLocaleString("en-US");

/**
 * Throws a {@link TaskInputError} (a 422) when `footprint` is over a tree limit, naming the limit,
 * its setting and what the request would make.
 */
export function checkFootprint(kind: string, footprint: TaskFootprint, limits: TaskLimits): void {
  const over = (made: string, max: number, unit: string, setting: string) => {
    const message = `This ${kind} request would make ${made}; at most ${count(max)} ${unit} are allowed (${setting})`;
    throw new TaskInputError(message, [{ field: "input", message }]);
  };
  if (footprint.tasks > limits.treeTasks) {
    over(`${count(footprint.tasks)} tasks in one tree`, limits.treeTasks, "per tree", "TASK_MAX_TREE_TASKS");
  }
  if (footprint.taskEvents > limits.taskEvents) {
    over(`${count(footprint.taskEvents)} events on one task`, limits.taskEvents, "per task", "TASK_MAX_EVENTS");
  }
  if (footprint.events > limits.treeEvents) {
    over(`${count(footprint.events)} events in its tree`, limits.treeEvents, "per tree", "TASK_MAX_TREE_EVENTS");
  }
}

/** A run went past a tree limit: the task fails with this message. */
export class TaskLimitExceededError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TaskLimitExceededError";
  }
}

/** One task's share of its tree's budget in a run. */
export interface TaskBudget {
  /** Counts `n` more events on the task's channel; throws a {@link TaskLimitExceededError} past a limit. */
  charge(n: number): void;
  /** Counts a child (one more task; its two `subtask_*` events here, its final event there) and gives its share. */
  spawn(childId: string): TaskBudget;
}

/**
 * The budget of one run of a tree, as its root's share: every task's final event is reserved
 * when it is counted, so a task stopped at a limit can still end.
 *
 * @example
 * ```ts
 * const root = treeBudget(DEFAULT_TASK_LIMITS, "t1");
 * root.charge(1); // a token
 * const child = root.spawn("t2"); // throws once the tree holds TASK_MAX_TREE_TASKS
 * ```
 */
export function treeBudget(limits: TaskLimits, rootId: string): TaskBudget {
  let tasks = 0;
  let events = 0;
  const stop = (what: string, setting: string): never => {
    throw new TaskLimitExceededError(`${what} (${setting}); it was stopped`);
  };
  const chargeTree = (n: number) => {
    if (events + n > limits.treeEvents) {
      stop(`The tree reached ${count(limits.treeEvents)} events, the most one tree may emit`, "TASK_MAX_TREE_EVENTS");
    }
    events += n;
  };
  const share = (taskId: string): TaskBudget => {
    if (tasks + 1 > limits.treeTasks) {
      stop(`The tree reached ${count(limits.treeTasks)} tasks, the most one tree may hold`, "TASK_MAX_TREE_TASKS");
    }
    chargeTree(1);
    tasks++;
    let own = 1;
    const charge = (n: number) => {
      if (own + n > limits.taskEvents) {
        stop(
          `Task ${taskId} reached ${count(limits.taskEvents)} events, the most one task may emit`,
          "TASK_MAX_EVENTS",
        );
      }
      chargeTree(n);
      own += n;
    };
    return {
      charge,
      spawn(childId) {
        charge(2);
        return share(childId);
      },
    };
  };
  return share(rootId);
}

/** A tenant is over a quota: the request is refused (a 429) before anything is stored. */
export class TaskQuotaError extends StoreCtlError {
  /** When asking again may succeed: soon for unfinished tasks, later for what is kept. */
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number) {
    super("rate_limited", message);
    this.name = "TaskQuotaError";
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
