import { assertEquals } from "../testing/assert.ts";
import { startRedis } from "../testing/redis_server.ts";
import { missingTools } from "../testing/tools.ts";
import { openStore } from "../lib/store/mod.ts";

Deno.test(
  "scriptRunner() sends a script again to a redis-server that restarted without it (NOSCRIPT)",
  { ignore: missingTools("redis-server") },
  async () => {
    await using redis = await startRedis();
    const store = await openStore({ url: redis.url, prefix: "scripts:" });
    try {
      const task = (id: string) => ({ task_id: id, kind: "demo", session_id: "s", metadata: {}, input: {} });
      const doc = (id: string) => ({ id, title: id, source: `${id}.md`, hash: `${id}-hash`, chunks: ["One."] });
      assertEquals(await store.tasks.create(task("before")), true);
      assertEquals((await store.documents.put(doc("before"))).status, "added");
      await redis.stop();
      await redis.start(); // empty: no data, no scripts
      for (let i = 0; i < 50; i++) {
        if (await store.ping().then(() => true, () => false)) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assertEquals(await store.tasks.create(task("after")), true);
      assertEquals((await store.documents.put(doc("after"))).status, "added");
    } finally {
      await store.close();
    }
  },
);
