/**
 * Does throughput scale with shards? The same work on one redis-server (+ 1 replica) and on
 * Redis Clusters of `--masters` masters (+ a replica each; 3 by default, `3,6` for a curve),
 * interleaved round by round (1, 3, 6, 6, 3, 1, …):
 * - tasks: a runner in this process (`--concurrency` at once) runs `--tasks` demo trees (a root
 *   with one child, 2 updates and 3 tokens each) submitted at once, until all are `done`;
 * - fan-out: `--channels` session channels with 5 followers each; `--events` appends spread
 *   over them, `--inflight` at once, until every follower has every event.
 * Prints per round the rate, the scripts the masters ran per unit, the CPU of this process and
 * of each redis-server (how the load spreads over the masters), and the Redis-bound ceiling: the rate at which the busiest master
 * would use a whole core. Then the median ratios cluster / one Redis over the rounds, best
 * beside them. On a machine where this one process saturates a core first (2 cores here) the
 * rates measure the client; the ceilings say what the shards add once Redis is the limit.
 *
 * With `--redis-cpu 0.15` every redis-server is capped at that share of one core (a cgroup each;
 * needs root): Redis is then the limit, as on a machine with a core per shard, and the rates
 * themselves say whether throughput scales with the masters. The share is granted per
 * `--redis-cpu-period-ms` (10: the kernel's default 100 stops a busy server for 90 ms at a time,
 * and a task tree, a chain of ~25 scripts, then measures those stops more than the server's work).
 *
 * `deno run -A bench/shards_bench.ts [--rounds 5] [--tasks 1500] [--concurrency 64] [--channels 200] [--events 20000]
 * [--inflight 64] [--redis-cpu 0.15] [--redis-cpu-period-ms 10] [--masters 3,6]`
 *
 * @module
 */
import { parseArgs } from "node:util";
import { openStore, sessionChannel, type Store } from "../lib/store/mod.ts";
import {
  createTaskRunner,
  DEFAULT_TASK_LIMITS,
  demoTask,
  FINAL_STATUSES,
  taskChannel,
  type TaskStatus,
} from "../lib/tasks/mod.ts";
import { startRedis } from "../testing/redis_server.ts";
import { startRedisCluster } from "../testing/redis_cluster.ts";
import { cpuSeconds } from "./process_cpu.ts";
import { limitCpu } from "./cpu_limit.ts";
import { commandStats, redisInfo, scriptTotals } from "./redis_info.ts";
import { masterPorts } from "../testing/store_backends.ts";
import { sleep } from "../lib/time/mod.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    tasks: { type: "string", default: "1500" },
    concurrency: { type: "string", default: "64" },
    channels: { type: "string", default: "200" },
    events: { type: "string", default: "20000" },
    /** Appends in flight at once in the fan-out. */
    inflight: { type: "string", default: "64" },
    "redis-cpu": { type: "string" },
    "redis-cpu-period-ms": { type: "string", default: "10" },
    /** The clusters' sizes, each against the one Redis: `3`, or a curve such as `3,6`. */
    masters: { type: "string", default: "3" },
  },
});
const TASKS = Number(values.tasks), CHANNELS = Number(values.channels), EVENTS = Number(values.events);
const FOLLOWERS = 5;

interface Backend {
  readonly name: string;
  readonly url: string;
  /** The redis-server processes whose CPU counts (a cluster's masters and replicas). */
  readonly pids: readonly number[];
  /** Those of them that are masters (they take the commands; replicas only copy). */
  readonly masters: readonly number[];
  /** The masters' ports, for their `INFO commandstats`. */
  readonly masterPorts: readonly number[];
}

interface Outcome {
  readonly rate: number;
  readonly cpu: number;
  readonly redisCpu: number[];
  /** Scripts the masters ran per unit of work (`INFO commandstats`). */
  readonly scripts: number;
  /**
   * The rate at which the busiest master would be at 100 % of a core: where throughput stops
   * growing when Redis, not the clients, is what runs out (work ÷ that master's CPU seconds).
   */
  readonly ceiling: number;
}

/** Runs `work` and measures its rate (`count` per wall second) and the CPU it cost each process. */
async function measure(backend: Backend, count: number, work: () => Promise<void>): Promise<Outcome> {
  const scripts = async () =>
    (await Promise.all(backend.masterPorts.map(commandStats))).reduce((n, stats) => n + scriptTotals(stats).calls, 0);
  const scriptsBefore = await scripts();
  const before = { self: await cpuSeconds(Deno.pid), redis: await Promise.all(backend.pids.map(cpuSeconds)) };
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  const redis = await Promise.all(backend.pids.map(cpuSeconds));
  const scriptsAfter = await scripts();
  const redisCpu = redis.map((s, i) => s - before.redis[i]);
  const busiest = Math.max(...backend.masters.map((pid) => redisCpu[backend.pids.indexOf(pid)]));
  return {
    rate: count / seconds,
    cpu: await cpuSeconds(Deno.pid) - before.self,
    redisCpu,
    scripts: (scriptsAfter - scriptsBefore) / count,
    ceiling: count / busiest,
  };
}

/**
 * A store of its own for one measurement. The trees are submitted all at once: a capped Redis takes seconds to work
 * off that burst, which the service's 1 s deadline would count as a failure rather than as the wait it is here.
 */
function openBenchStore(backend: Backend): Promise<Store> {
  return openStore({ url: backend.url, prefix: `shards-${crypto.randomUUID()}:`, timeoutMs: 10_000 });
}

async function tasks(backend: Backend): Promise<Outcome> {
  const store = await openBenchStore(backend);
  store.tasks.shareEvents({ session: true, global: false }); // the service's default streams
  const runner = createTaskRunner({
    store,
    definitions: [demoTask],
    concurrency: Number(values.concurrency),
    // All the trees are submitted at once: more unfinished ones than a tenant may have by default.
    limits: { ...DEFAULT_TASK_LIMITS, liveTasks: 2 * TASKS, storedTasks: 2 * TASKS, storedEvents: 100 * TASKS },
    log: () => {},
  });
  const controller = new AbortController();
  try {
    return await measure(backend, TASKS, async () => {
      const roots = await Promise.all(Array.from({ length: TASKS }, () =>
        runner.submit({
          kind: "demo",
          input: { steps: 2, delay_ms: 0, tokens: ["a", "b", "c"], children: 1 },
        })));
      // Each root's end from its channel (one subscription per shard), not by polling listings.
      await Promise.all(roots.map(async ({ task_id }) => {
        for await (const event of store.events.follow(taskChannel(task_id), 0, controller.signal)) {
          if (FINAL_STATUSES.has(event.kind as TaskStatus)) return;
        }
      }));
    });
  } finally {
    controller.abort();
    await runner.close();
    await store.close();
  }
}

async function fanOut(backend: Backend): Promise<Outcome> {
  const store = await openBenchStore(backend);
  const controller = new AbortController();
  try {
    const channels = Array.from({ length: CHANNELS }, (_, i) => sessionChannel(`s${i}`));
    const perChannel = (c: number) => Math.floor(EVENTS / CHANNELS) + (c < EVENTS % CHANNELS ? 1 : 0);
    const followers = channels.flatMap((channel, c) =>
      Array.from({ length: FOLLOWERS }, () => follow(store, channel, perChannel(c), controller.signal))
    );
    await sleep(500); // every follower subscribed
    return await measure(backend, EVENTS, async () => {
      let next = 0;
      await Promise.all(Array.from({ length: Number(values.inflight) }, async () => {
        for (let i = next++; i < EVENTS; i = next++) {
          await store.events.append(channels[i % CHANNELS], "token", { task_id: "t", message: String(i) }, 10_000);
        }
      }));
      await Promise.all(followers);
    });
  } finally {
    controller.abort();
    await store.close();
  }
}

/** Follows `channel` from its start until `count` events came. */
async function follow(store: Store, channel: string, count: number, signal: AbortSignal): Promise<void> {
  if (count === 0) return; // fewer events than channels: this one gets none, and waiting for one would never end
  let got = 0;
  for await (const batch of store.events.followBatches(channel, 0, signal)) {
    got += batch.length;
    if (got >= count) return;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const line = (o: Outcome, unit: string) =>
  `${o.rate.toFixed(0)} ${unit}/s; CPU: bench ${o.cpu.toFixed(1)} s, redis-servers ` +
  o.redisCpu.map((s) => s.toFixed(2)).join(" / ") + ` s; ${o.scripts.toFixed(1)} scripts per ${unit.slice(0, -1)}; ` +
  `Redis-bound ceiling ${o.ceiling.toFixed(0)} ${unit}/s`;

await using single = await startRedis();
// A replica for the one Redis too: the cluster's masters each feed one, so both sides pay for replication.
await using replica = await startRedis({ replicaOf: single.port });
for (let i = 0; !/master_link_status:up/.test(await redisInfo(replica.port, "replication")); i++) {
  if (i > 200) throw new Error("the replica of the one Redis did not sync within 10 s");
  await sleep(50);
}
const sizes = values.masters.split(",").map(Number);
await using clusters = new AsyncDisposableStack();
const backends: Backend[] = [
  {
    name: "1 Redis",
    url: single.url,
    pids: [single.pid, replica.pid],
    masters: [single.pid],
    masterPorts: [single.port],
  },
];
for (const masters of sizes) {
  const cluster = clusters.use(await startRedisCluster({ masters }));
  backends.push({
    name: `cluster, ${masters} masters`,
    url: cluster.url,
    pids: cluster.ports.map((port) => cluster.pid(port)),
    masters: (await cluster.nodes()).filter((node) => node.flags.includes("master")).map((n) => cluster.pid(n.port)),
    masterPorts: await masterPorts(cluster),
  });
}
// With --redis-cpu, every redis-server gets that share of a core (a cgroup each): Redis, not this
// process, is then the limit, as on a machine with a core per shard, and the rates show what the shards add.
const redisCores = values["redis-cpu"] === undefined ? undefined : Number(values["redis-cpu"]);
const limits = redisCores === undefined ? [] : await Promise.all(
  backends.flatMap((b) => b.pids).map((pid) => limitCpu(pid, redisCores, Number(values["redis-cpu-period-ms"]))),
);
await using _limits = {
  async [Symbol.asyncDispose]() {
    for (const limit of limits) await limit[Symbol.asyncDispose]();
  },
};
/** Per cluster size, each round's ratios to the one Redis. */
const ratios = new Map(sizes.map((masters) => [masters, {
  tasks: [] as number[],
  fanOut: [] as number[],
  tasksCeiling: [] as number[],
  fanOutCeiling: [] as number[],
}]));
for (let round = 1; round <= Number(values.rounds); round++) {
  const order = round % 2 ? backends : [...backends].reverse();
  const results = new Map<string, { tasks: Outcome; fanOut: Outcome }>();
  for (const backend of order) {
    const outcome = { tasks: await tasks(backend), fanOut: await fanOut(backend) };
    results.set(backend.name, outcome);
    console.log(
      `round ${round}, ${backend.name}: tasks ${line(outcome.tasks, "trees")}; fan-out ${
        line(outcome.fanOut, "events")
      }`,
    );
  }
  const one = results.get(backends[0].name)!;
  for (const [i, masters] of sizes.entries()) {
    const them = results.get(backends[i + 1].name)!;
    const r = ratios.get(masters)!;
    r.tasks.push(them.tasks.rate / one.tasks.rate);
    r.fanOut.push(them.fanOut.rate / one.fanOut.rate);
    r.tasksCeiling.push(them.tasks.ceiling / one.tasks.ceiling);
    r.fanOutCeiling.push(them.fanOut.ceiling / one.fanOut.ceiling);
  }
}
const summary = (xs: number[]) => `${median(xs).toFixed(2)}× (best ${Math.max(...xs).toFixed(2)}×)`;
for (const [masters, r] of ratios) {
  console.log(
    `cluster of ${masters} masters / 1 Redis, median of ${r.tasks.length} rounds: tasks ${summary(r.tasks)}, ` +
      `fan-out ${summary(r.fanOut)}; Redis-bound ceilings: tasks ${summary(r.tasksCeiling)}, ` +
      `fan-out ${summary(r.fanOutCeiling)}`,
  );
}
