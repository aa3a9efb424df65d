import type { Json } from "../fixture.ts";
import type { Random } from "../random.ts";

const GiB = 1024 ** 3;

/** The interval's bounds: the last second before `now`, as the API writes times. */
function interval(now: number): Json {
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19) + "Z";
  return { interval: "1sec", stime: iso(now - 1000), etime: iso(now) };
}

const round = (value: number, places = 3) => Math.round(value * 10 ** places) / 10 ** places;

/** Host metrics shared by the cluster's and a node's statistics. */
function hostMetrics(random: Random, now: number): Json {
  const user = round(random.next() * 0.4);
  const system = round(random.next() * 0.1);
  const free = random.int(4, 12) * GiB;
  const available = free - random.int(0, 2) * GiB;
  const provisional = Math.max(0, available - GiB);
  return {
    ...interval(now),
    available_flash: 0,
    available_flash_no_overbooking: 0,
    available_memory: available,
    available_memory_no_overbooking: available,
    conns: random.int(5, 500),
    cpu_idle: round(1 - user - system - 0.004),
    cpu_iowait: 0,
    cpu_irqs: 0.002,
    cpu_nice: 0,
    cpu_steal: 0,
    cpu_system: system,
    cpu_user: user,
    egress_bytes: random.int(1000, 900_000),
    ephemeral_storage_avail: 800 * GiB,
    ephemeral_storage_free: 850 * GiB,
    free_memory: free,
    ingress_bytes: random.int(1000, 900_000),
    persistent_storage_avail: 800 * GiB,
    persistent_storage_free: 850 * GiB,
    provisional_flash: 0,
    provisional_flash_no_overbooking: 0,
    provisional_memory: provisional,
    provisional_memory_no_overbooking: provisional,
    total_req: random.int(100, 20_000),
  };
}

/**
 * The cluster's last interval, with the metrics of a captured real one
 * (redis-enterprise-rs tests/fixtures/cluster_stats.json).
 */
export function clusterStats(random: Random, now: number): Json {
  return hostMetrics(random, now);
}

/** A node's last interval (tests/fixtures/nodes_stats.json): the host's metrics and `cur_aof_rewrites`. */
export function nodeStats(random: Random, now: number): Json {
  return { ...hostMetrics(random, now), cur_aof_rewrites: 0 };
}

/**
 * A database's last interval (tests/fixtures/bdbs_stats.json): CPU per shard and main thread
 * (`shard_cpu_*`, `main_thread_cpu_*`, fractions of a core), `used_memory`, keys and requests.
 */
export function bdbStats(random: Random, now: number, memorySize: number): Json {
  const reads = random.int(0, 5000);
  const writes = random.int(0, 2000);
  const keys = random.int(0, 100_000);
  return {
    ...interval(now),
    conns: random.int(1, 200),
    egress_bytes: random.int(0, 500_000),
    evicted_objects: 0,
    expired_objects: random.int(0, 20),
    fork_cpu_system: 0,
    fork_cpu_user: 0,
    ingress_bytes: random.int(0, 500_000),
    instantaneous_ops_per_sec: reads + writes,
    last_req_time: new Date(now - 1000).toISOString().slice(0, 19) + "Z",
    last_res_time: new Date(now - 1000).toISOString().slice(0, 19) + "Z",
    main_thread_cpu_system: round(random.next() * 0.05),
    main_thread_cpu_user: round(random.next() * 0.2),
    mem_frag_ratio: round(1 + random.next(), 2),
    mem_not_counted_for_evict: 0,
    mem_size_lua: 31744,
    monitor_sessions_count: 0,
    no_of_expires: Math.floor(keys / 10),
    no_of_keys: keys,
    other_req: random.int(0, 50),
    other_res: random.int(0, 50),
    pubsub_channels: 0,
    pubsub_patterns: 0,
    read_hits: Math.floor(reads * 0.9),
    read_misses: reads - Math.floor(reads * 0.9),
    read_req: reads,
    read_res: reads,
    shard_cpu_system: round(random.next() * 0.05),
    shard_cpu_user: round(random.next() * 0.3),
    total_connections_received: random.int(1, 1000),
    total_req: reads + writes,
    total_res: reads + writes,
    used_memory: Math.round(memorySize * random.next() * 0.6),
    write_hits: writes,
    write_misses: 0,
    write_req: writes,
    write_res: writes,
  };
}
