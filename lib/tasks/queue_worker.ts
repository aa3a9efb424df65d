import type { Job, StoreOutage, TaskStore, WorkQueue } from "../store/mod.ts";
import type { Execution, TaskObserver } from "./execution.ts";
import { FINAL_STATUSES } from "../task_model/model.ts";
import type { StoreRetry } from "./store_retry.ts";
import { sleep } from "../time/mod.ts";

/** What takes root tasks from the work queue works with. */
export interface QueueWorkerDeps {
  readonly queue: WorkQueue;
  readonly tasks: TaskStore;
  readonly retry: StoreRetry;
  readonly log: (line: string) => void;
  readonly outage: StoreOutage;
  /** This runner's name in the queue's consumer group. */
  readonly consumer: string;
  readonly leaseMs: number;
  /** Runs of one task before it fails as lost. */
  readonly maxAttempts: number;
  /** Each lane's limit (see `planLanes`). */
  readonly limits: ReadonlyMap<string, number>;
  readonly execution: Execution;
  /** Told of each job taken over. */
  readonly observer?: Pick<TaskObserver, "takenOver">;
  /** Tells runners elsewhere that `taskId` is queued again (the control channel's `queued`); never fails. */
  announce(taskId: string): Promise<void>;
  /** True once the runner closes: no more jobs are taken, and unfinished ones are handed back. */
  isClosed(): boolean;
}

/** Takes root tasks from the work queue while their lanes have room, and runs them under a lease. */
export interface QueueWorker {
  /**
   * Takes jobs while there is room; cheap to call often (calls made while it runs fold into one
   * more round). Answers `true` when it took nothing because the queue had nothing for it (not
   * when the lanes were full or the store failed): the runner is idle.
   */
  takeWork(): Promise<boolean>;
  /** True while this worker holds a job of `taskId` (it took it, and it has not ended). */
  holds(taskId: string): boolean;
  /** Resolves once every job taken has finished or been handed back. */
  settled(): Promise<void>;
}

/**
 * The most jobs one take asks for, per lane: a busy runner fills its room in a few round trips
 * (one job per round trip left it running a tenth of its concurrency when the store was slow to
 * answer), while a burst of new work still spreads over the runners that look for it.
 */
const TAKE_BATCH = 16;

/** The work loop of a runner over the store's `queue`. */
export function createQueueWorker(deps: QueueWorkerDeps): QueueWorker {
  const { queue, tasks, retry, log, outage, consumer, leaseMs, maxAttempts, limits } = deps;
  const { stepper, startRoot } = deps.execution;
  const running = new Map([...limits.keys()].map((lane) => [lane, 0]));
  const jobs = new Set<Promise<void>>();
  /**
   * The jobs taken, by id, until when they count as held: while they run, and for a lease after
   * one ends unsettled (its lease then runs out, and it is reclaimed as the next attempt). Any
   * other job leased to this runner came from a take whose reply was lost: it never ran.
   */
  const heldUntil = new Map<string, number>();
  const heldTasks = new Set<string>();
  const heldJobIds = () => {
    const now = Date.now();
    for (const [id, until] of heldUntil) if (until <= now) heldUntil.delete(id);
    return [...heldUntil.keys()];
  };
  /**
   * A take failed, so the store may have leased jobs whose reply never came: until a take over every lane finds
   * nothing, takes also hand out jobs leased to this runner that it does not hold. (Only then: that look costs
   * a take as many steps as the runner holds jobs.)
   */
  let unsure = false;
  let turn = 0;
  let taking = false;
  let again = false;
  /** The latest round: settled() waits for its take too, as the job it brings must be handed back. */
  let lastRound: Promise<boolean> = Promise.resolve(false);

  /** Takes jobs while there is room; a call during a round makes that round look once more. */
  const takeWork = (): Promise<boolean> => {
    if (taking) {
      again = true;
      return lastRound;
    }
    return lastRound = takeRound();
  };
  const takeRound = async () => {
    taking = true;
    let took = false, empty = false;
    try {
      do {
        again = false;
        while (!deps.isClosed()) {
          // The lanes with room, starting at a different one each time: none is always asked last.
          const open = [...limits].filter(([lane, limit]) => running.get(lane)! < limit).map(([lane]) => lane);
          if (open.length === 0) break;
          const first = turn++ % open.length;
          const lanes = [...open.slice(first), ...open.slice(0, first)];
          const rooms = lanes.map((lane) => Math.min(limits.get(lane)! - running.get(lane)!, TAKE_BATCH));
          const held = heldJobIds(); // also forgets the unsettled jobs whose leases ran out
          const taken = await queue.take(consumer, leaseMs, lanes, unsure ? held : undefined, rooms).then(
            (taken) => {
              outage.answered();
              if (taken.length === 0 && open.length === limits.size) unsure = false; // every queue looked at
              return taken;
            },
            (error) => {
              unsure = true;
              outage.failed("task queue", error as Error);
              return null;
            },
          );
          empty = taken?.length === 0;
          if (!taken?.length) break;
          took = true;
          for (const job of taken) startJob(job);
        }
      } while (again && !deps.isClosed());
    } finally {
      taking = false;
    }
    return empty && !took;
  };

  const startJob = (job: Job) => {
    heldUntil.set(job.id, Infinity);
    heldTasks.add(job.taskId);
    if (job.retaken) log(`task ${job.taskId}: taken again (a take's reply was lost)`);
    running.set(job.lane, (running.get(job.lane) ?? 0) + 1);
    const done = runJob(job).then((settled) => {
      if (settled) heldUntil.delete(job.id);
      else heldUntil.set(job.id, Date.now() + leaseMs);
    }).finally(() => {
      running.set(job.lane, running.get(job.lane)! - 1);
      heldTasks.delete(job.taskId);
      jobs.delete(done);
      void takeWork();
    });
    jobs.add(done);
  };

  /** Runs a job; false when it ends unsettled (not acknowledged, handed back or requeued). */
  const runJob = async (job: Job): Promise<boolean> => {
    try {
      if (job.reclaimed) {
        deps.observer?.takenOver(job.lane);
        await reclaim(job);
        return true;
      }
      const lease = holdLease(job);
      let finished: boolean;
      try {
        finished = await startRoot(job);
      } finally {
        lease.abort();
      }
      if (!finished && deps.isClosed()) {
        // Handed back: another runner takes it now rather than at its next look (which may be seconds away).
        await retry(() => queue.release(consumer, job.id));
        await deps.announce(job.taskId);
      } else await retry(() => queue.ack(job.id));
      return true;
    } catch (error) {
      log(`task ${job.taskId}: ${(error as Error).message}`);
      return false;
    }
  };

  /** Renews the job's lease every third of it until aborted; a renewal the store fails is repeated. */
  const holdLease = (job: Job): AbortController => {
    const renewing = new AbortController();
    void (async () => {
      while (!renewing.signal.aborted) {
        await sleep(Math.max(10, leaseMs / 3), renewing.signal).catch(() => {});
        if (renewing.signal.aborted) return;
        await retry(() => queue.renew(consumer, job.id), renewing.signal).catch((e) => {
          if (!renewing.signal.aborted) log(`task ${job.taskId}: lease not renewed: ${(e as Error).message}`);
        });
      }
    })();
    return renewing;
  };

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

  return {
    takeWork,
    holds: (taskId) => heldTasks.has(taskId),
    async settled() {
      await lastRound; // a job taken while closing is added to `jobs`, and handed back
      await Promise.allSettled([...jobs]);
    },
  };
}
