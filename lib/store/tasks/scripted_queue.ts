import { DEFAULT_LANE, type WorkQueue } from "./port.ts";
import { ACK_LUA, PUSH_LUA, RELEASE_LUA, RENEW_LUA, REQUEUE_LUA, TAKE_LUA } from "./queue_scripts.ts";

/**
 * The `queue` port over a Redis-speaking host, with the scripts of `queue_scripts.ts`: one
 * stream per lane. `run` runs a script with the key prefix as its first argument.
 *
 * @example
 * ```ts ignore
 * const queue = createScriptedQueue(run);
 * await queue.push("t1");
 * ```
 */
export function createScriptedQueue(run: (script: string, args: string[]) => Promise<unknown>): WorkQueue {
  // A job id is `<lane>/<stream id>`: the lane names the stream of the calls that follow.
  const queueOf = (lane: string) => lane === DEFAULT_LANE ? "queue" : `queue:${lane}`;
  const job = (jobId: string) => {
    const at = jobId.lastIndexOf("/");
    return [queueOf(jobId.slice(0, at)), jobId.slice(at + 1)];
  };
  const queue: WorkQueue = {
    async push(taskId, attempt = 1, lane = DEFAULT_LANE) {
      await run(PUSH_LUA, [queueOf(lane), taskId, String(attempt)]);
    },
    async take(consumer, leaseMs, lanes = [DEFAULT_LANE]) {
      const names = new Map(lanes.map((lane) => [queueOf(lane), lane]));
      const reply = await run(TAKE_LUA, [consumer, String(leaseMs), ...names.keys()]) as
        | [string, string, number, string[]]
        | null;
      if (!reply) return undefined;
      const lane = names.get(String(reply[0]))!;
      const f: Record<string, string> = {};
      for (let i = 0; i < reply[3].length; i += 2) f[String(reply[3][i])] = String(reply[3][i + 1]);
      return {
        id: `${lane}/${reply[1]}`,
        taskId: f.task,
        lane,
        attempt: Number(f.attempt),
        reclaimed: Number(reply[2]) === 1,
      };
    },
    async renew(consumer, jobId) {
      const [name, id] = job(jobId);
      await run(RENEW_LUA, [name, consumer, id]);
    },
    async ack(jobId) {
      await run(ACK_LUA, job(jobId));
    },
    async requeue(jobId, taskId, attempt) {
      await run(REQUEUE_LUA, [...job(jobId), taskId, String(attempt)]);
    },
    async release(consumer, jobId) {
      const [name, id] = job(jobId);
      await run(RELEASE_LUA, [name, consumer, id]);
    },
  };
  return queue;
}
