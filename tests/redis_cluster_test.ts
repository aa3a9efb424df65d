import { assert, assertEquals } from "../testing/assert.ts";
import { startRedisCluster } from "../testing/redis_cluster.ts";
import { missingTools } from "../testing/tools.ts";

Deno.test(
  "redis_cluster: 3 masters and 3 replicas, every slot served, a failover swaps a master and its replica, every process gone after dispose",
  { ignore: missingTools("redis-server", "redis-cli") },
  async () => {
    const started = Date.now();
    let pids: number[];
    {
      await using cluster = await startRedisCluster();
      const nodes = (await cluster.cli(cluster.ports[0], "CLUSTER", "NODES")).trim().split("\n");
      const roles = nodes.map((line) => line.split(" ")[2].split(","));
      assertEquals(roles.filter((flags) => flags.includes("master")).length, 3, nodes.join("\n"));
      assertEquals(roles.filter((flags) => flags.includes("slave")).length, 3, nodes.join("\n"));
      assert(/cluster_state:ok/.test(await cluster.cli(cluster.ports[5], "CLUSTER", "INFO")));
      assert(/^redis-cluster:\/\/127\.0\.0\.1:\d+,127\.0\.0\.1:\d+,127\.0\.0\.1:\d+$/.test(cluster.url), cluster.url);
      pids = cluster.ports.map((port) => cluster.pid(port));
      for (const replica of (await cluster.nodes()).filter((n) => n.master)) {
        assert(/master_link_status:up/.test(await cluster.cli(replica.port, "INFO", "replication")), `${replica.port}`);
      }
      const { from, to } = await cluster.failover("some-key");
      const after = await cluster.nodes(from);
      assertEquals(after.find((n) => n.port === to)?.flags.includes("master"), true);
      assertEquals(after.find((n) => n.port === from)?.flags.includes("slave"), true);
    }
    for (const pid of pids) {
      const alive = await Deno.stat(`/proc/${pid}`).then(() => true, () => false);
      assert(!alive, `redis-server ${pid} still runs after dispose`);
    }
    console.log(`cluster up and down in ${Date.now() - started} ms`);
  },
);
