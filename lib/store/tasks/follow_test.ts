import { assert, assertEquals } from "../../../tests/assert.ts";
import { startRedis } from "../../../tests/redis_server.ts";
import { missingTools } from "../../../tests/tools.ts";
import { createRedisStore } from "../redis.ts";
import type { StoredEvent } from "./port.ts";

/** The next batch of `iterator`, or a failure after `ms`. */
async function nextWithin(iterator: AsyncIterator<StoredEvent[]>, ms: number): Promise<StoredEvent[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) =>
    timer = setTimeout(() => reject(new Error(`nothing in ${ms} ms`)), ms)
  );
  try {
    return (await Promise.race([iterator.next(), late])).value as StoredEvent[];
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("follow on Redis: a channel followed while its reader is blocked gets its events at once", {
  ignore: missingTools("redis-server"),
}, async () => {
  await using redis = await startRedis();
  // One reader connection, blocking 5 s at a time: a new channel must not wait out the block.
  const store = await createRedisStore(redis.url, { prefix: `f-${crypto.randomUUID()}:`, followReaders: 1 });
  const controller = new AbortController();
  try {
    const a = store.events.followBatches("a", 0, controller.signal)[Symbol.asyncIterator]();
    const first = nextWithin(a, 2_000);
    await store.events.append("a", "token", { task_id: "t", message: "1" });
    assertEquals((await first).map((e) => e.id), [1]); // a's reader is attached, and now blocked again
    for (const name of ["b", "c", "d"]) {
      const iterator = store.events.followBatches(name, 0, controller.signal)[Symbol.asyncIterator]();
      const batch = nextWithin(iterator, 1_000);
      await new Promise((r) => setTimeout(r, 50)); // the channel joins the reader's next XREAD
      const started = performance.now();
      await store.events.append(name, "token", { task_id: "t", message: name });
      assertEquals((await batch).map((e) => e.data.message), [name]);
      assert(performance.now() - started < 1_000);
    }
    const next = nextWithin(a, 1_000);
    await store.events.append("a", "token", { task_id: "t", message: "2" });
    assertEquals((await next).map((e) => e.id), [2], "the first channel is still read");
  } finally {
    controller.abort();
    await store.close();
  }
});
