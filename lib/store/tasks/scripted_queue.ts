import { DEFAULT_LANE, type Job, type WorkQueue } from "../../task_model/ports.ts";
import { ACK_LUA, BACKLOG_LUA, PUSH_LUA, RELEASE_LUA, RENEW_LUA, REQUEUE_LUA, TAKE_LUA } from "./queue_scripts.ts";
import { queueName, spreadOrder } from "./layout.ts";
import type { Partitions } from "./partitions.ts";

/** The most partitions one take asks at once. */
const WAVE = 16;

/**
 * The jobs a take's first wave asks of each partition: a busy queue's partitions each hand out
 * several for one script (one each cost a take script per job), and later waves, over the
 * partitions that may be empty, ask as many as WAVE at once.
 */
const FIRST_WAVE_SHARE = 4;

/**
 * The `queue` port over a Redis-speaking host, with the scripts of `queue_scripts.ts`: one
 * stream per lane in each partition (`layout.ts`; one partition on one Redis). A task is queued
 * in its partition; `take` asks, lane by lane, the partitions in turn: starting where the last
 * take's first wave ended, so that none waits behind the others; in {@link spreadOrder}, so that
 * one take's jobs come from every master; a wave at a time, the first asking 4 jobs of each
 * partition, the next as many partitions at once as there is room (at most 16). Each reclaims
 * its own expired leases before handing out new jobs; the take stops at the first partitions that
 * hand out any. Jobs keep their order within a partition; across partitions there is none. An
 * idle take costs one script per partition and lane (48 scripts in 4 round trips on a cluster of
 * today's layout).
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
  // Partitions in a row sit on one master (layout.ts): a wave of them would load it while the others idle.
  const order = spreadOrder(count);
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
      // Without rooms, one job in all (of the first lane that has any).
      const roomOf = (i: number) => rooms?.[i] ?? 1;
      const firstWave = (room: number) => Math.ceil(room / FIRST_WAVE_SHARE);
      // The next take starts past this one's first wave: busy partitions take turns.
      const start = next;
      next = (next + Math.max(1, firstWave(roomOf(0)))) % count;
      const total = rooms ? rooms.reduce((sum, n) => sum + n, 0) : 1;
      const laneOf = new Map(lanes.map((lane) => [queueName(lane), lane]));
      /** Up to `room[i]` jobs of each of `queues` from partition `b`. */
      const ask = async (b: number, queues: string[], room: number[]) => {
        const mine = (held ?? []).map(job).filter((j) => j.b === b).map((j) => `${queueName(j.lane)} ${j.id}`);
        const most = Math.min(total, room.reduce((sum, n) => sum + n, 0));
        const check = held ? "1" : "0";
        const args = [
          consumer,
          String(leaseMs),
          String(queues.length),
          check,
          String(most),
          ...queues,
          ...room.map(String),
        ];
        const replies = await partitions.in(b, TAKE_LUA, [...args, ...mine]) as [string, string, number, string[]][];
        return replies.map((reply) => taken(laneOf.get(String(reply[0]))!, b, reply));
      };
      // One partition: one script over all the lanes.
      if (count === 1) return await ask(0, [...laneOf.keys()], lanes.map((_, i) => roomOf(i)));
      // Lane by lane in the order given, each over every partition: a later lane's job never goes before an
      // earlier lane's. The partitions in turn, a wave at a time: first a quarter as many as the lane has room
      // for, then as many (at most WAVE), the room shared out among them, so that an idle look takes a few round
      // trips, not one each.
      for (const [i, lane] of lanes.entries()) {
        const room = roomOf(i);
        for (let asked = 0; asked < count;) {
          const most = asked === 0 ? firstWave(room) : room;
          const wave = Math.max(1, Math.min(most, WAVE, count - asked));
          const share = (j: number) => Math.floor(room / wave) + (j < room % wave ? 1 : 0);
          const bs = Array.from({ length: wave }, (_, j) => order[(start + asked + j) % count]);
          asked += wave;
          const jobs = (await Promise.all(bs.map((b, j) => ask(b, [queueName(lane)], [share(j)])))).flat();
          if (jobs.length > 0) return jobs;
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
