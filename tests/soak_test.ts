import { assert, assertEquals } from "../testing/assert.ts";
import { soak } from "../bench/soak.ts";
import { missingTools } from "../testing/tools.ts";

Deno.test(
  "soak, short form: 3 processes (Deno and Node) on a Redis Cluster through a kill and a failover lose nothing",
  {
    ignore: missingTools("node", "redis-server", "redis-cli"),
  },
  async () => {
    const report = await soak({ seconds: 40, trees: 60, subscribers: 20 });
    assertEquals(report.losses, [], "every task final, every event seen once and in order, none finished twice");
    assert(report.reconnects > 0, "the subscribers resumed with Last-Event-ID");
    assert(
      Object.keys(report.keysLeft).every((family) =>
        ["queue", "queue:pipelines", "seq", "layout", "ev:control", "fanout", "cursor"].includes(family)
      ),
      `after retention only the queues, the partitions' last creation numbers, the layout, the control channel and ` +
        `the webhooks' fan-out lease and position stay: ${JSON.stringify(report.keysLeft)}`,
    );
  },
);
