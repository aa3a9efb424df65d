/**
 * The store's task ports: what the runner asks of a store (`TaskStore`, `EventLog`, `WorkQueue`)
 * and what it gives and gets; each store adapter implements them (`lib/store/tasks/`).
 *
 * @module
 */
import type { TaskRecord, TaskStatus, TaskTrace, TaskUpdate } from "./model.ts";
import type { StoredEvent } from "./events.ts";

// The ports speak the model's words (statuses, records, channels): they are given here too.
export { FINAL_STATUSES, TASK_STATUSES, type TaskRecord, type TaskStatus, type TaskUpdate } from "./model.ts";
export {
  eventData,
  GLOBAL_CHANNEL,
  HOOK_KINDS,
  HOOKS_CHANNEL,
  sessionChannel,
  SHARED_CHANNEL_CAP,
  type StoredEvent,
  SUBTASK_KINDS,
  taskChannel,
} from "./events.ts";

/** What `create()` needs; the task starts `in_progress`. */
export interface NewTask {
  readonly task_id: string;
  readonly kind: string;
  readonly session_id: string;
  readonly metadata: Record<string, unknown>;
  readonly input: unknown;
  readonly parent_id?: string;
  readonly spawn_key?: string;
  readonly trace?: TaskTrace;
  /**
   * A root given a lane is queued there (attempt 1, see {@link WorkQueue}) in the same atomic
   * step as it is created: no task is stored without the job that runs it.
   */
  readonly lane?: string;
}

/** Names a runner's step, so that a write repeated after a lost reply applies once. */
export interface StepId {
  /** One execution of the task (a new one for each attempt, and for each child). */
  readonly run: string;
  /** The step's number within the run, from 1, in the order the steps are sent. */
  readonly n: number;
}

/**
 * One atomic step on a task: an optional status change (refused when the task is final, or is
 * not in one of `from`), fields to set, an update to append, and the event it emits.
 */
export interface TaskStep {
  readonly to?: TaskStatus;
  readonly from?: readonly TaskStatus[];
  readonly result?: Record<string, unknown>;
  readonly error?: string;
  /** Replaces the input (what a finished task keeps of it, when the whole would be a second copy). */
  readonly input?: unknown;
  /** A string sets the question; `null` clears it. */
  readonly prompt?: string | null;
  /** A value sets the answer; `null` clears it. */
  readonly answer?: unknown;
  readonly update?: TaskUpdate;
  /** The event, published on the task's channel, its session's and the global one. */
  readonly event?: { readonly kind: string; readonly payload?: Record<string, unknown> };
  /**
   * Makes the step safe to repeat: when the last step applied to the task had the same `run`
   * and an `n` at or above this one, it answers `{ok: true}` and changes nothing (its first try
   * reached the store, only the reply was lost), even on a task that is final by then. A
   * runner sends a run's steps one at a time, so only such a repeat can carry an old `n`.
   */
  readonly id?: StepId;
}

/** Whether a step applied; when not, the status that refused it (undefined: no such task). */
export type StepOutcome = { readonly ok: true } | { readonly ok: false; readonly status?: TaskStatus };

/** A task as a list shows it: without its updates, with how many direct children it has. */
export interface ListedTask extends TaskRecord {
  readonly children: number;
}

/** A page of tasks in the order asked for. */
export interface TaskPage {
  readonly tasks: readonly ListedTask[];
  readonly total: number;
  /** Pass it back as `cursor` for the next page; absent on the last one. */
  readonly next_cursor?: string;
}

/** Filters and paging of `list()`. */
export interface TaskQuery {
  readonly status?: TaskStatus;
  readonly session_id?: string;
  /** Only tasks without a parent. */
  readonly roots?: boolean;
  /** Creation order: oldest first (`asc`, the default) or newest first. */
  readonly order?: "asc" | "desc";
  readonly limit: number;
  readonly cursor?: string;
}

/** What a store (or a tenant's view) holds of tasks: what its quotas are checked against. */
export interface TaskUsage {
  /** Unfinished tasks: `in_progress` and `input_required`. */
  readonly live: number;
  /** All tasks kept, finished ones included. */
  readonly stored: number;
  /** Events on the tasks' own channels (a task's events and its children's `subtask_*`); shared channels are not counted. */
  readonly events: number;
}

/**
 * The `tasks` port: records, parent/child links in spawn order, a status index and a session
 * index. Every state change emits its event in the same atomic step (see {@link EventLog} for
 * the channels); a child's `done`, `failed` and `input_required` also reach its parent's channel
 * as `subtask_done`, `subtask_failed`, `subtask_input_required`, and its creation as
 * `subtask_spawned`, each with `subtask_id` and `spawn_key`.
 */
export interface TaskStore {
  /** Stores a new `in_progress` task and links it under its parent; false when the id exists or the parent does not. */
  create(task: NewTask): Promise<boolean>;
  get(taskId: string): Promise<TaskRecord | undefined>;
  list(query: TaskQuery): Promise<TaskPage>;
  /** Direct children in spawn order. */
  children(taskId: string): Promise<TaskRecord[]>;
  /** One atomic step; see {@link TaskStep}. */
  step(taskId: string, step: TaskStep): Promise<StepOutcome>;
  /**
   * Moves the task (and with `cascade` all its descendants) that are not final to `cancelled`,
   * each emitting `cancelled`, in one atomic step. Returns the ids actually moved; `found` is
   * false when there is no such task.
   */
  cancel(taskId: string, cascade: boolean): Promise<{ found: boolean; cancelled: string[] }>;
  /** Removes the task, its descendants and their task channels; returns the removed ids. */
  remove(taskId: string): Promise<string[]>;
  /** How many tasks are live and kept, and how many events their channels hold (after a retention sweep). */
  usage(): Promise<TaskUsage>;
  /**
   * Sets the retention: a root task that reaches a final state from now on is removed with its
   * tree and task channels this long after (swept by later `create` and `list` calls). 0, the
   * default, keeps tasks until they are deleted.
   */
  retain(ms: number): void;
  /**
   * Which shared channels a task's events also go to (default: both). A service whose session or
   * global stream is off skips writing it; every process on one store should say the same.
   */
  shareEvents(channels: SharedChannels): void;
  /**
   * A new unique id for a root task of `sessionId`. Any unique id works; this one the store finds
   * at once (on Redis Cluster it hashes to the session's partition).
   */
  newRootId(sessionId: string): string;
}

/** The shared channels a task's events are copied to, besides its own. */
export interface SharedChannels {
  readonly session: boolean;
  readonly global: boolean;
  /** The `hooks` channel: the events of {@link HOOK_KINDS}, for webhook deliveries. */
  readonly hooks?: boolean;
}

/**
 * The `events` port: append-only channels with per-channel sequence ids.
 */
export interface EventLog {
  /** Appends an event and returns its id; with `maxLength` the channel keeps about that many. */
  append(channel: string, kind: string, data: Record<string, unknown>, maxLength?: number): Promise<number>;
  /** The id of the channel's last event, 0 when it has none. */
  last(channel: string): Promise<number>;
  /** Events with an id above `after`, oldest first, at most `limit`. */
  range(channel: string, after: number, limit?: number): Promise<StoredEvent[]>;
  /**
   * Events with an id above `after`: those stored, then new ones as they are appended, with no
   * gap and no duplicate, until `signal` aborts (which releases everything the follower holds).
   */
  follow(channel: string, after: number, signal: AbortSignal): AsyncIterable<StoredEvent>;
  /**
   * `follow` in batches: whatever has arrived since the last batch, in order and never empty.
   * A slow consumer gets fewer, larger batches (one write per batch keeps fan-out cheap).
   */
  followBatches(channel: string, after: number, signal: AbortSignal): AsyncIterable<StoredEvent[]>;
  /**
   * `followBatches` pushed to `watcher` instead of pulled: the events above `after` (those stored,
   * then new ones) in non-empty batches, with no gap and no duplicate, until `signal` aborts. Live
   * batches are handed to every watcher of the channel as one array, with no promise or iterator
   * per watcher: what one channel followed by thousands of streams needs. Returns at once.
   */
  watch(channel: string, after: number, signal: AbortSignal, watcher: EventWatcher): void;
}

/** What {@link EventLog.watch} tells. */
export interface EventWatcher {
  /**
   * The next events, oldest first, never empty; called by the store as they come. The array and
   * its events are shared with the channel's other watchers: read them, never change them. It
   * must not throw (the other watchers are told in the same loop).
   */
  take(batch: readonly StoredEvent[]): void;
  /** The watch ended without `signal` aborting: the store was closed, or failed to answer (`error`). */
  end(error?: unknown): void;
}

/** The events of `batches` one by one: `follow` from `followBatches`. */
export async function* eachEvent(batches: AsyncIterable<StoredEvent[]>): AsyncGenerator<StoredEvent> {
  for await (const batch of batches) yield* batch;
}

/** The lane of every kind that has none of its own. */
export const DEFAULT_LANE = "tasks";

/** A queued root task, leased to one runner at a time. */
export interface Job {
  /** Opaque; names the job within its lane's queue. */
  readonly id: string;
  readonly taskId: string;
  /** The queue it was taken from (see {@link WorkQueue}). */
  readonly lane: string;
  /** 1 for the first run; each hand-back or reclaim queues the next attempt. */
  readonly attempt: number;
  /** True when taken over from a runner whose lease ran out (or that handed it back). */
  readonly reclaimed: boolean;
  /**
   * True when it was leased to this taker already, by a take whose reply never came (see
   * `held` in {@link WorkQueue.take}): it has not run, and runs now as the same attempt.
   */
  readonly retaken?: boolean;
}

/**
 * The work queue of root tasks, shared by every runner process: one queue per lane (a Redis
 * stream each, `queue` for the default lane and `queue:<lane>` for the others, with the consumer
 * group `runners`), so a runner whose lane is full still takes from the others. A runner takes a
 * job under a lease, renews it while it runs, and acknowledges it when done. A job whose lease
 * ran out (its runner died) is taken over by the next `take` (XAUTOCLAIM); `release` hands one
 * back at once (graceful shutdown).
 */
export interface WorkQueue {
  /** Queues the task in `lane` (default {@link DEFAULT_LANE}). */
  push(taskId: string, attempt?: number, lane?: string): Promise<void>;
  /**
   * Up to `rooms[i]` jobs (default 1) of each of `lanes` (default: the default lane), taken at
   * once (one script on Redis, so a busy runner fills its room in one round trip): reclaimable
   * jobs first, then new ones, each kind lane by lane in the order given; empty when there is
   * none. Never blocks. On a cluster, one take's jobs come from one partition.
   *
   * With `held`, the ids of the jobs `consumer` took (and whose leases may still run), jobs
   * leased to `consumer` that are not among them come next, after reclaimable ones, as
   * `retaken`: a take whose reply never came (a deadline passed, a connection dropped, and the
   * store carried it out anyway) leased them to a runner that never heard of them.
   */
  take(
    consumer: string,
    leaseMs: number,
    lanes?: readonly string[],
    held?: readonly string[],
    rooms?: readonly number[],
  ): Promise<Job[]>;
  /** Keeps the lease of a job this consumer holds. */
  renew(consumer: string, jobId: string): Promise<void>;
  /** The job is finished: removes it. */
  ack(jobId: string): Promise<void>;
  /**
   * Finishes the job and queues the task's next attempt in the same lane, in one atomic step;
   * nothing when the job is gone.
   */
  requeue(jobId: string, taskId: string, attempt: number): Promise<void>;
  /** Makes the job reclaimable now. */
  release(consumer: string, jobId: string): Promise<void>;
  /** What waits in each of `lanes`: the jobs no runner has taken yet, and when the oldest was queued. */
  backlog(lanes: readonly string[]): Promise<LaneBacklog[]>;
}

/** A lane's jobs that no runner has taken yet (see {@link WorkQueue.backlog}). */
export interface LaneBacklog {
  readonly lane: string;
  readonly waiting: number;
  /** When the oldest of them was queued, in ms since the epoch; none when none wait. */
  readonly oldestAt?: number;
}

/** The task ports of one store, and what they hold open. */
export interface TaskPorts {
  readonly tasks: TaskStore;
  readonly events: EventLog;
  readonly queue: WorkQueue;
  /** Ends followers and their connections. */
  close(): Promise<void>;
}
