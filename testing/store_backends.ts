/**
 * Runs a store contract on every backend, each a real part: memory, Redis over TCP (a
 * redis-server of its own), Upstash REST (a stand-in forwarding to a redis-server) and Redis
 * Cluster (3 masters + 3 replicas). One `Deno.test` per backend, named `<name>: <backend>`; the
 * contract runs twice there: on the store, then (step "… in a tenant view") on a `forTenant` view of
 * a fresh store each time, whose `close()` closes its base.
 *
 * @example
 * ```ts ignore
 * testOnEveryStore("task store contract", contract, { cluster: spreadSteps });
 * ```
 *
 * @module
 */
import { createMemoryStore, openStore, type Store } from "../lib/store/mod.ts";
import { startRedis } from "./redis_server.ts";
import { type RedisCluster, startRedisCluster } from "./redis_cluster.ts";
import { missingTools } from "./tools.ts";
import { startUpstashStandIn } from "./upstash_standin.ts";

/** Opens a store of the backend under test with its own key prefix. */
export type OpenStore = (prefix: string) => Promise<Store>;

/** A contract: steps of `t` against stores that `open` makes. */
export type StoreContract = (t: Deno.TestContext, open: OpenStore) => Promise<void>;

/** The stores `open` makes, each seen through a tenant view (closing the view closes its store). */
export function inTenantView(open: OpenStore, tenant = "tenant-1"): OpenStore {
  return async (prefix) => {
    const base = await open(prefix);
    return { ...base.forTenant(tenant), close: () => base.close() };
  };
}

/**
 * `cluster`: steps that only mean something on a cluster, run after the contract on the same cluster.
 * `tenantView: false`: not again in a tenant view (a contract about views themselves).
 */
export function testOnEveryStore(
  name: string,
  contract: StoreContract,
  options: { cluster?: (t: Deno.TestContext, cluster: RedisCluster) => Promise<void>; tenantView?: boolean } = {},
): void {
  const both = async (t: Deno.TestContext, open: OpenStore) => {
    await contract(t, open);
    if (options.tenantView !== false) await t.step(`${name} in a tenant view`, (t) => contract(t, inTenantView(open)));
  };
  Deno.test(`${name}: memory`, (t) => both(t, (prefix) => Promise.resolve(createMemoryStore({ prefix }))));

  Deno.test(`${name}: Redis over TCP (real redis-server)`, { ignore: missingTools("redis-server") }, async (t) => {
    await using redis = await startRedis();
    await both(t, (prefix) => openStore({ url: redis.url, prefix }));
  });

  Deno.test(
    `${name}: Upstash REST (stand-in forwarding to redis-server)`,
    { ignore: missingTools("redis-server") },
    async (t) => {
      await using redis = await startRedis();
      await using upstash = await startUpstashStandIn(redis.url);
      await both(t, (prefix) => openStore({ upstash: { url: upstash.url, token: upstash.token }, prefix }));
    },
  );

  Deno.test(
    `${name}: Redis Cluster (real 3 masters + 3 replicas)`,
    { ignore: missingTools("redis-server", "redis-cli") },
    async (t) => {
      await using cluster = await startRedisCluster();
      await both(t, (prefix) => openStore({ url: cluster.url, prefix }));
      await options.cluster?.(t, cluster);
    },
  );
}

/** The ports of the cluster's masters, as its first node sees them. */
export async function masterPorts(cluster: RedisCluster): Promise<number[]> {
  return (await cluster.nodes()).filter((node) => node.flags.includes("master")).map((node) => node.port);
}

/** A demo task record for the contract suites: session `s1` unless `extra` says otherwise. */
export const task = (id: string, extra: { parent_id?: string; spawn_key?: string; session_id?: string } = {}) => ({
  task_id: id,
  kind: "demo",
  session_id: extra.session_id ?? "s1",
  metadata: { message: `task ${id}` },
  input: { steps: 1, tokens: [] },
  ...extra,
});
