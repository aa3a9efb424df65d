import { DEFAULT_LANE, type Job, type WorkQueue } from "../../task_model/ports.ts";
import { ACK_LUA, BACKLOG_LUA, PUSH_LUA, RELEASE_LUA, RENEW_LUA, REQUEUE_LUA, TAKE_LUA } from "./queue_scripts.ts";
import { queueName } from "./layout.ts";
import type { Partitions } from "./partitions.ts";

/**
 * The `queue` port over a Redis-speaking host, with the scripts of `queue_scripts.ts`: one
 * stream per lane in each partition (`layout.ts`; one partition on one Redis). A task is queued
 * in its partition; `take` asks, lane by lane, the partitions in turn (starting one further each
 * time, so that none waits behind the others), each reclaiming its own expired leases before
 * handing out new jobs, and stops at the first partition that hands out any. Jobs keep their
 * order within a partition; across partitions there is none. An idle take costs one script per
 * partition and lane.
 *
 * @example
 * ```ts ignore
 * const queue = createScriptedQueue(partitions);
 * await queue.push("t1");
 * ```
 */
export function createScriptedQueue(partitions: Partitions): WorkQueue {
  // A job id is `<lane>/<partition>/<stream id>`: the calls that follow find its stream by it.
  const job = (jobId: string) => {
    const at = jobId.lastIndexOf("/");
    const before = jobId.lastIndexOf("/", at - 1);
    return { lane: jobId.slice(0, before), b: Number(jobId.slice(before + 1, at)), id: jobId.slice(at + 1) };
  };
  const count = partitions.layout.partitions;
  let next = 0;
  const queue: WorkQueue = {
    async push(taskId, attempt = 1, lane = DEFAULT_LANE) {
      await partitions.in(partitions.layout.rootPartition(taskId), PUSH_LUA, [
        queueName(lane),
        taskId,
        String(attempt),
      ]);
    },
    async take(consumer, leaseMs, lanes = [DEFAULT_LANE], held, rooms) {
      const start = next;
      next = (next + 1) % count;
      // Without rooms, one job in all (of the first lane that has any).
      const room = (i: number) => String(rooms?.[i] ?? 1);
      const total = String(rooms ? rooms.reduce((sum, n) => sum + n, 0) : 1);
      // Lane by lane in the order given, each over every partition: a later lane's job never goes
      // before an earlier lane's. (One partition: one script over all the lanes, as before partitions.)
      const rounds = count === 1
        ? [lanes.map((lane, i) => [lane, room(i)])]
        : lanes.map((lane, i) => [[lane, room(i)]]);
      for (const round of rounds) {
        const names = new Map(round.map(([lane]) => [queueName(lane), lane]));
        for (let i = 0; i < count; i++) {
          const b = (start + i) % count;
          const mine = (held ?? []).map(job).filter((j) => j.b === b).map((j) => `${queueName(j.lane)} ${j.id}`);
          const args = [
            consumer,
            String(leaseMs),
            String(names.size),
            held ? "1" : "0",
            total,
            ...names.keys(),
            ...round.map(([, n]) => n),
            ...mine,
          ];
          const replies = await partitions.in(b, TAKE_LUA, args) as [string, string, number, string[]][];
          if (replies.length > 0) return replies.map((reply) => taken(names.get(String(reply[0]))!, b, reply));
        }
      }
      return [];
    },
    async renew(consumer, jobId) {
      const { lane, b, id } = job(jobId);
      await partitions.in(b, RENEW_LUA, [queueName(lane), consumer, id]);
    },
    async ack(jobId) {
      const { lane, b, id } = job(jobId);
      await partitions.in(b, ACK_LUA, [queueName(lane), id]);
    },
    async requeue(jobId, taskId, attempt) {
      const { lane, b, id } = job(jobId);
      await partitions.in(b, REQUEUE_LUA, [queueName(lane), id, taskId, String(attempt)]);
    },
    async release(consumer, jobId) {
      const { lane, b, id } = job(jobId);
      await partitions.in(b, RELEASE_LUA, [queueName(lane), consumer, id]);
    },
    async backlog(lanes) {
      const replies = await Promise.all(
        Array.from(
          { length: count },
          (_, b) => partitions.in(b, BACKLOG_LUA, lanes.map(queueName)) as Promise<unknown[]>,
        ),
      );
      return lanes.map((lane, i) => {
        let waiting = 0;
        let oldestAt: number | undefined;
        for (const reply of replies) {
          waiting += Number(reply[2 * i]);
          const id = String(reply[2 * i + 1]);
          const at = id === "" ? undefined : Number(id.slice(0, id.indexOf("-"))); // a stream id: <ms>-<seq>
          if (at !== undefined && (oldestAt === undefined || at < oldestAt)) oldestAt = at;
        }
        return { lane, waiting, ...(oldestAt !== undefined && { oldestAt }) };
      });
    },
  };
  return queue;
}

/** A job from a take's reply: {queue, id, 1 reclaimed | 2 retaken | 0 new, fields}. */
function taken(lane: string, b: number, [, id, how, fields]: [string, string, number, string[]]): Job {
  const f: Record<string, string> = {};
  for (let i = 0; i < fields.length; i += 2) f[String(fields[i])] = String(fields[i + 1]);
  return {
    id: `${lane}/${b}/${id}`,
    taskId: f.task,
    lane,
    attempt: Number(f.attempt),
    reclaimed: Number(how) === 1,
    ...(Number(how) === 2 && { retaken: true }),
  };
}
