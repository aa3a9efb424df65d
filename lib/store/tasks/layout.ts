/**
 * Where task data lives on Redis: which hash tag (and so which slot) holds a task tree, a work
 * queue partition or an event channel.
 *
 * On one Redis (and Upstash) there is one partition, tag `{t}`: every task key in one slot, as
 * before clusters. On Redis Cluster there are {@link CLUSTER_PARTITIONS} (or, on a cluster that
 * holds tasks of that earlier layout, {@link FIRST_CLUSTER_PARTITIONS}: see `clusterPartitions`):
 * partition `b` of `n` has a tag whose slot lies in the b-th n-th of the slot range, so the
 * partitions spread evenly over masters that own contiguous slot ranges (as `redis-cli --cluster
 * create` assigns them; 48 fall 16/16/16 on 3 masters and 8 each on 6, where 16 fell 6/4/6). A
 * root task's partition is a hash of its id, and its descendants live in their root's
 * partition, so a tree stays in one slot and each of its scripts (a step with its events, a
 * cascade cancel, a removal) stays one atomic script. The service picks root ids that hash to
 * their session's partition ({@link TaskLayout.newRootId}), where the session's channel lives,
 * so a step's session event is written by the same script. A
 * partition also holds its own indexes (by status, by session, the retention queue) and its
 * own share of every work queue lane. The `global` and `control` channels live in a slot of
 * their own, by name.
 *
 * @module
 */
import { DEFAULT_LANE } from "../../task_model/ports.ts";

/** How many partitions a cluster store spreads tasks and work queues over. */
export const CLUSTER_PARTITIONS = 48;

/** The partitions of the first cluster layout, which a cluster holding its tasks keeps. */
export const FIRST_CLUSTER_PARTITIONS = 16;

/** Redis Cluster's key slot: CRC16 (XMODEM) of the key (its hash tag when it has one), mod 16384. */
export function keySlot(key: string): number {
  const open = key.indexOf("{");
  if (open >= 0) {
    const close = key.indexOf("}", open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of new TextEncoder().encode(key)) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

/** A lane's work queue stream, relative to its partition's keys: `queue`, or `queue:<lane>`. */
export function queueName(lane: string): string {
  return lane === DEFAULT_LANE ? "queue" : `queue:${lane}`;
}

/** The task key layout of a store with `partitions` partitions (1: one Redis). */
export class TaskLayout {
  readonly partitions: number;
  readonly #tags: string[];
  readonly #prefix: string;

  constructor(prefix: string, partitions: number) {
    this.#prefix = prefix;
    this.partitions = partitions;
    this.#tags = partitions === 1 ? ["t"] : partitionTags("t", partitions);
  }

  /** The key prefix of partition `b`: `<prefix>{<tag>}:`. */
  keys(b: number): string {
    return `${this.#prefix}{${this.#tags[b]}}:`;
  }

  /**
   * The partition an id hashes to: where a root task with this id is looked for first (and
   * where its queue entry goes).
   */
  rootPartition(taskId: string): number {
    return this.partitions === 1 ? 0 : partitionOf(taskId, this.partitions);
  }

  /** The partition of a session: its channel, and the trees of roots with ids from {@link newRootId}. */
  sessionPartition(sessionId: string): number {
    return this.partitions === 1 ? 0 : partitionOf(sessionId, this.partitions);
  }

  /** A new random id for a root task of `sessionId` that hashes to the session's partition. */
  newRootId(sessionId: string): string {
    const home = this.sessionPartition(sessionId);
    for (;;) { // as many tries on average as partitions
      const id = crypto.randomUUID();
      if (this.rootPartition(id) === home) return id;
    }
  }

  /**
   * The key prefix of a channel that is not a task's: a session's in the session's partition,
   * any other in its own slot on a cluster.
   */
  channelKeys(channel: string): string {
    if (this.partitions === 1) return this.keys(0);
    if (channel.startsWith("session:")) return this.keys(this.sessionPartition(channel.slice(8)));
    return `${this.#prefix}{c:${channel}}:`;
  }
}

/**
 * `n` hash tags `<name>:<b>.<k>`, the b-th with its slot in the b-th of `n` equal parts of the
 * slot range (the first k that lands there).
 */
export function partitionTags(name: string, n: number): string[] {
  return Array.from({ length: n }, (_, b) => tagIn(name, b, n));
}

/**
 * Partitions `0..n-1` in an order where any few in a row lie far apart in the slot range (the
 * van der Corput sequence: ½, ¼, ¾, ⅛, …, scaled to `n`), so on different masters however many
 * own its contiguous parts: asking partitions in this order spreads a batch of work over the shards.
 *
 * @example
 * ```ts
 * spreadOrder(8); // [0, 4, 2, 6, 1, 5, 3, 7]
 * ```
 */
export function spreadOrder(n: number): number[] {
  const order = new Set<number>();
  for (let i = 0; order.size < n; i++) {
    let at = 0; // i's bits mirrored behind the binary point
    for (let bits = i, weight = 0.5; bits > 0; bits >>= 1, weight /= 2) if (bits & 1) at += weight;
    order.add(Math.floor(at * n));
  }
  return [...order];
}

/** The partition (of `n`) of an id: a hash of it. */
export function partitionOf(id: string, n: number): number {
  return fnv(id) % n;
}

function tagIn(name: string, b: number, n: number): string {
  const low = Math.ceil((b * 16384) / n);
  const high = Math.ceil(((b + 1) * 16384) / n);
  for (let k = 0;; k++) {
    const tag = `${name}:${b}.${k}`;
    const slot = keySlot(tag);
    if (slot >= low && slot < high) return tag;
  }
}

/** FNV-1a, 32 bits: spreads task ids over the partitions. */
function fnv(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
