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
    take(consumer, leaseMs, lanes = [DEFAULT_LANE], held, rooms) {
      const t = now();
      // Without rooms, one job in all (of the first lane that has any).
      const room = lanes.map((_, i) => rooms?.[i] ?? 1);
      let left = rooms ? room.reduce((sum, n) => sum + n, 0) : 1;
      const taken: Job[] = [];
      // The jobs the consumer holds and those this take hands out: any other leased to it was lost.
      const known = new Set(held);
      // Each kind in turn, lane by lane: reclaimable, then (with `held`) lost, then new.
      const takeEach = (match: (e: Entry) => boolean, reclaimed: boolean, retaken: boolean) => {
        for (const [i, lane] of lanes.entries()) {
          for (const entry of entries) {
            if (room[i] === 0 || left === 0) break;
            if (entry.lane !== lane || !match(entry)) continue;
            entry.owner = consumer;
            entry.idleSince = t;
            room[i]--;
            left--;
            const { id, taskId, attempt } = entry;
            taken.push({ id, taskId, lane, attempt, reclaimed, ...(retaken && { retaken }) });
            known.add(id);
          }
        }
      };
      takeEach((e) => e.owner !== undefined && t - e.idleSince >= leaseMs, true, false);
      if (held) {
        takeEach((e) => e.owner === consumer && !known.has(e.id), false, true);
      }
      takeEach((e) => e.owner === undefined, false, false);
      return Promise.resolve(taken);
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
