import { scriptCaller, type ScriptHost } from "../script_host.ts";
import { APPEND_LUA } from "./event_scripts.ts";
import { EXISTS_LUA } from "./task_scripts.ts";
import { CLUSTER_PARTITIONS, FIRST_CLUSTER_PARTITIONS, keySlot, TaskLayout } from "./layout.ts";

/** Task ids whose partition a process remembers (found once, it never changes). */
const REMEMBERED = 100_000;

/**
 * Runs the task, event and queue scripts in the right partition (`layout.ts`): finds the
 * partition of a task (its root's), and on a cluster appends the events for channels outside the
 * tree's slot that the writing scripts return instead of writing them (`task_scripts.ts`).
 *
 * A task's partition: remembered once known (the process created it, or found it); else its own
 * id's partition (every root is there), else the other partitions are asked at once (a child
 * created by another process: one small script per partition, once per process and task).
 *
 * @example
 * ```ts ignore
 * const partitions = new Partitions(host, { prefix: "storectl:", cluster: true });
 * const b = await partitions.partitionOf("t1"); // undefined: no such task
 * ```
 */
export class Partitions {
  readonly layout: TaskLayout;
  readonly cluster: boolean;
  readonly #call: (keys: string[], script: string, args: string[]) => Promise<unknown>;
  readonly #homes = new Map<string, number>();
  readonly #variants = new Map<string, string>();

  /** `partitions`: a cluster's (from {@link clusterPartitions}; default {@link CLUSTER_PARTITIONS}). */
  constructor(host: ScriptHost, options: { prefix: string; cluster: boolean; partitions?: number }) {
    this.cluster = options.cluster;
    this.layout = new TaskLayout(options.prefix, options.cluster ? options.partitions ?? CLUSTER_PARTITIONS : 1);
    this.#call = scriptCaller(host);
  }

  /**
   * Runs `script` with ARGV[1] = `keys` (a partition's or a channel's key prefix) and `args`,
   * naming a key of that slot. On a cluster, the scripts relay (`RELAY = true`) and notify with
   * sharded pub/sub (`SPUBLISH`: to the shard of the channel's slot only).
   */
  at(keys: string, script: string, args: string[]): Promise<unknown> {
    return this.#call([`${keys}seq`], this.#variant(script), [keys, ...args]);
  }

  /** {@link at} in partition `b`. */
  in(b: number, script: string, args: string[]): Promise<unknown> {
    return this.at(this.layout.keys(b), script, args);
  }

  /** A writing script in partition `b`: its result, after the events it relays are appended. */
  async write(b: number, script: string, args: string[]): Promise<unknown> {
    const reply = await this.in(b, script, args);
    if (!this.cluster) return reply;
    const [result, events] = reply as [unknown, [string, string, string, string, string][]];
    // In order, one at a time: a channel's events stay in the order the task emitted them.
    for (const [channel, kind, data, cap, ttl] of events) {
      await this.at(this.layout.channelKeys(channel), APPEND_LUA, [channel, kind, data, cap, ttl]);
    }
    return result;
  }

  /** The partition holding `taskId`, undefined when there is no such task. */
  async partitionOf(taskId: string): Promise<number | undefined> {
    if (this.layout.partitions === 1) return 0;
    const known = this.#homes.get(taskId);
    if (known !== undefined) return known;
    const own = this.layout.rootPartition(taskId);
    if (Number(await this.in(own, EXISTS_LUA, [taskId])) === 1) return this.remember(taskId, own);
    const others = Array.from({ length: this.layout.partitions }, (_, b) => b).filter((b) => b !== own);
    const found = await Promise.all(others.map((b) => this.in(b, EXISTS_LUA, [taskId])));
    const at = found.findIndex((n) => Number(n) === 1);
    return at < 0 ? undefined : this.remember(taskId, others[at]);
  }

  /** Records where a task is (when it was created here). */
  remember(taskId: string, b: number): number {
    if (this.layout.partitions === 1) return b;
    if (this.#homes.size >= REMEMBERED) this.#homes.delete(this.#homes.keys().next().value!);
    this.#homes.set(taskId, b);
    return b;
  }

  /** Forgets removed tasks. */
  forget(taskIds: readonly string[]): void {
    for (const id of taskIds) this.#homes.delete(id);
  }

  /**
   * The key prefix of a channel's stream: a task's channel lives in its tree's partition (an
   * unknown task's in its own id's), any other channel in its own slot.
   */
  async channelKeys(channel: string): Promise<string> {
    if (!channel.startsWith("task:")) return this.layout.channelKeys(channel);
    const id = channel.slice(5);
    return this.layout.keys(await this.partitionOf(id) ?? this.layout.rootPartition(id));
  }

  #variant(script: string): string {
    if (!this.cluster) return script;
    let text = this.#variants.get(script);
    if (text === undefined) {
      text = script.replaceAll("'PUBLISH'", "'SPUBLISH'").replace("local RELAY = false", "local RELAY = true");
      this.#variants.set(script, text);
    }
    return text;
  }
}

/**
 * How many partitions the tasks of the cluster under `host` use, decided once and kept in the
 * cluster (`<prefix>{t}:layout`): {@link FIRST_CLUSTER_PARTITIONS} where the `{t}` slot holds a
 * creation counter of that first layout (`<any prefix>{t}:seq`: its tasks live in its 16
 * partitions), else {@link CLUSTER_PARTITIONS}.
 */
export async function clusterPartitions(host: ScriptHost, prefix: string): Promise<number> {
  const keys = `${prefix}{t}:`;
  return Number(await scriptCaller(host)([`${keys}layout`], LAYOUT_LUA, [keys, String(keySlot(keys)), ...SIZES]));
}

const SIZES = [String(FIRST_CLUSTER_PARTITIONS), String(CLUSTER_PARTITIONS)];

/** ARGV: the `{t}` keys' prefix, that slot, the first layout's partitions, the current one's. */
const LAYOUT_LUA = `
local k = ARGV[1] .. 'layout'
local kept = redis.call('GET', k)
if kept then return tonumber(kept) end
local n = ARGV[4]
for _, key in ipairs(redis.call('CLUSTER', 'GETKEYSINSLOT', tonumber(ARGV[2]), 1000)) do
  if string.sub(key, -7) == '{t}:seq' then n = ARGV[3] end
end
redis.call('SET', k, n)
return tonumber(n)
`;
