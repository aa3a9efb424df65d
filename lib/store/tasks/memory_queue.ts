import { DEFAULT_LANE, type Job, type WorkQueue } from "../../task_model/ports.ts";

/** The memory twin of the Redis work queue (one process, so a lease only runs out in tests). */
export function createMemoryQueue(now: () => number): WorkQueue {
  interface Entry {
    readonly id: string;
    readonly taskId: string;
    readonly lane: string;
    readonly attempt: number;
    owner?: string;
    idleSince: number;
  }
  // One array for every lane, oldest first: each lane's entries keep their order in it.
  const entries: Entry[] = [];
  let seq = 0;
  const find = (id: string) => entries.findIndex((e) => e.id === id);
  return {
    push(taskId, attempt = 1, lane = DEFAULT_LANE) {
      entries.push({ id: `${lane}/0-${++seq}`, taskId, lane, attempt, idleSince: now() });
      return Promise.resolve();
    },
    take(consumer, leaseMs, lanes = [DEFAULT_LANE], held) {
      const t = now();
      const first = (match: (e: Entry) => boolean): Entry | undefined => {
        for (const lane of lanes) {
          const entry = entries.find((e) => e.lane === lane && match(e));
          if (entry) return entry;
        }
        return undefined;
      };
      const stale = first((e) => e.owner !== undefined && t - e.idleSince >= leaseMs);
      const lost = held && first((e) => e.owner === consumer && !held.includes(e.id));
      const entry = stale ?? lost ?? first((e) => e.owner === undefined);
      if (!entry) return Promise.resolve(undefined);
      entry.owner = consumer;
      entry.idleSince = t;
      const job: Job = {
        id: entry.id,
        taskId: entry.taskId,
        lane: entry.lane,
        attempt: entry.attempt,
        reclaimed: stale !== undefined,
        ...(!stale && lost && { retaken: true }),
      };
      return Promise.resolve(job);
    },
    renew(consumer, jobId) {
      const entry = entries[find(jobId)];
      if (entry?.owner === consumer) entry.idleSince = now();
      return Promise.resolve();
    },
    ack(jobId) {
      const i = find(jobId);
      if (i !== -1) entries.splice(i, 1);
      return Promise.resolve();
    },
    requeue(jobId, taskId, attempt) {
      const i = find(jobId);
      if (i === -1) return Promise.resolve(); // a repeat: the next attempt is queued already
      const [{ lane }] = entries.splice(i, 1);
      entries.push({ id: `${lane}/0-${++seq}`, taskId, lane, attempt, idleSince: now() });
      return Promise.resolve();
    },
    release(_consumer, jobId) {
      const entry = entries[find(jobId)];
      if (entry) entry.idleSince = -Infinity;
      return Promise.resolve();
    },
    backlog(lanes) {
      return Promise.resolve(lanes.map((lane) => {
        // An entry nobody took is idle since it was queued; oldest first.
        const waiting = entries.filter((e) => e.lane === lane && e.owner === undefined);
        return { lane, waiting: waiting.length, ...(waiting.length > 0 && { oldestAt: waiting[0].idleSince }) };
      }));
    },
  };
}
