import { assert, assertEquals } from "../../../testing/assert.ts";
import { startRedis } from "../../../testing/redis_server.ts";
import { missingTools } from "../../../testing/tools.ts";
import { until } from "../../../testing/until.ts";
import { createRedisStore } from "../redis.ts";
import { createUpstashStore } from "../upstash.ts";
import { startUpstashStandIn, type UpstashStandIn } from "../../../testing/upstash_standin.ts";
import type { StoredEvent } from "../../task_model/ports.ts";
import { type Store, StoreUnavailableError } from "../store.ts";

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

Deno.test(
  "follow on Redis: every channel a process follows shares one pub/sub connection, and gets its events at once",
  {
    ignore: missingTools("redis-server"),
  },
  async () => {
    await onRedis(async ({ store, redisPort, signal }) => {
      const before = await clientCount(redisPort);
      const followed = Array.from(
        { length: 200 },
        (_, i) => store.events.followBatches(`c${i}`, 0, signal)[Symbol.asyncIterator](),
      );
      const pending = followed.map((iterator) => nextWithin(iterator, 5_000));
      await new Promise((r) => setTimeout(r, 300)); // every feed subscribed
      for (let i = 0; i < 200; i++) await store.events.append(`c${i}`, "token", { task_id: "t", message: `m${i}` });
      const batches = await Promise.all(pending);
      assertEquals(batches.map((b) => b.map((e) => e.data.message)), Array.from({ length: 200 }, (_, i) => [`m${i}`]));
      assertEquals(await clientCount(redisPort) - before, 1, "one subscriber connection for 200 channels");
      const started = performance.now();
      const next = nextWithin(followed[7], 1_000);
      await store.events.append("c7", "token", { task_id: "t", message: "again" });
      assertEquals((await next).map((e) => e.id), [2]);
      assert(performance.now() - started < 1_000);
    });
  },
);

Deno.test("follow on Redis: events stored while the subscriber connection was down arrive after it, in order, once", {
  ignore: missingTools("redis-server"),
}, async () => {
  await onRedis(async ({ store, redisPort, signal }) => {
    const iterator = store.events.follow("c", 0, signal)[Symbol.asyncIterator]();
    const ids: number[] = [];
    const reading = (async () => {
      while (ids.length < 60) ids.push((await iterator.next()).value!.id);
    })();
    reading.catch(() => {}); // a failure below ends it early
    for (let i = 0; i < 20; i++) await store.events.append("c", "token", { task_id: "t", i });
    while (ids.length < 20) await new Promise((r) => setTimeout(r, 10));
    await redisCommand(redisPort, "CLIENT KILL TYPE pubsub"); // messages from now on are lost until it is back
    for (let i = 20; i < 40; i++) await store.events.append("c", "token", { task_id: "t", i });
    // No later message reveals the gap: the reconnected subscriber reads what it missed by itself.
    for (let i = 0; i < 300 && ids.length < 40; i++) await new Promise((r) => setTimeout(r, 10));
    assertEquals(ids.length, 40, "the events stored while it was down");
    for (let i = 40; i < 60; i++) await store.events.append("c", "token", { task_id: "t", i });
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      reading,
      new Promise((_, reject) => timer = setTimeout(() => reject(new Error(`got ${ids}`)), 5_000)),
    ]);
    clearTimeout(timer);
    assertEquals(ids, Array.from({ length: 60 }, (_, i) => i + 1));
  });
});

Deno.test(
  "watch on Redis: events that come while the channel's last batch goes out reach its watchers together, in order",
  { ignore: missingTools("redis-server") },
  async () => {
    await onRedis(async ({ store, signal }) => {
      const batches: (readonly StoredEvent[])[] = [];
      for (let w = 0; w < 3; w++) {
        store.events.watch("c", 0, signal, {
          take: (batch) => w === 0 && batches.push(batch),
          end: () => {},
        });
      }
      await store.events.append("c", "token", { task_id: "t", i: 0 });
      await until("the first event told", () => batches.length === 1);
      // 100 appends in flight at once: their messages come over a few milliseconds, one by one.
      await Promise.all(Array.from({ length: 100 }, (_, i) => store.events.append("c", "token", { task_id: "t", i })));
      await until("every event told", () => batches.at(-1)?.at(-1)?.id === 101, 5_000);
      assertEquals(batches.flat().map((e) => e.id), Array.from({ length: 101 }, (_, i) => i + 1));
      assert(batches.length <= 30, `100 events in ${batches.length - 1} batches: one write per event for each stream`);
    });
  },
);

Deno.test(
  "watch on Redis: after a long hand-out, the channel's next events wait about as long as it took, for others",
  { ignore: missingTools("redis-server") },
  async () => {
    await onRedis(async ({ store, signal }) => {
      const turnMs = 8;
      const handedOut: { started: number; ended: number; ids: number[] }[] = [];
      let produced: Promise<void> | undefined;
      store.events.watch("c", 0, signal, {
        take(batch) {
          const started = performance.now();
          if (batch[0].id === 2) { // a live hand-out, and a long one, as writing to many streams is
            while (performance.now() - started < turnMs) { /* busy */ }
            // Then a producer that waits for each append, as a task does, from after the turn.
            setTimeout(() => {
              produced = (async () => {
                for (const i of [3, 4]) await store.events.append("c", "token", { task_id: "t", i });
              })();
            }, 3);
          }
          handedOut.push({ started, ended: performance.now(), ids: batch.map((e) => e.id) });
        },
        end: () => {},
      });
      await store.events.append("c", "token", { task_id: "t", i: 1 });
      await until("the first event handed out", () => handedOut.length === 1); // its history, or live
      await store.events.append("c", "token", { task_id: "t", i: 2 });
      await until("the producer started", () => produced !== undefined);
      await produced;
      await until("every event handed out", () => handedOut.at(-1)?.ids.at(-1) === 4, 5_000);
      assertEquals(handedOut.flatMap((h) => h.ids), [1, 2, 3, 4]);
      const waited = handedOut[2].started - handedOut[1].ended;
      assert(waited >= turnMs - 1, `the next batch went out ${waited.toFixed(1)} ms after an ${turnMs} ms hand-out`);
    });
  },
);

Deno.test(
  "follow on Upstash: the followers of a channel share one poll, one range call per interval however many they are",
  { ignore: missingTools("redis-server") },
  async () => {
    const pollMs = 40;
    await onUpstash({ pollMs }, async ({ store, redisPort, signal }) => {
      await store.events.append("c", "token", { task_id: "t", i: 0 });
      const watchers = Array.from({ length: 10 }, () => {
        const batches: (readonly StoredEvent[])[] = [];
        store.events.watch("c", 0, signal, { take: (batch) => batches.push(batch), end: () => {} });
        return batches;
      });
      const followers = Array.from(
        { length: 10 },
        () => store.events.followBatches("c", 0, signal)[Symbol.asyncIterator](),
      );
      for (const follower of followers) assertEquals((await follower.next()).value?.length, 1, "the history");
      await until("every watcher told the history", () => watchers.every((b) => b.length === 1), 5_000);
      // 20 followers of one channel, nothing new: the store is asked once per interval, not 20 times.
      const before = await scriptCalls(redisPort);
      const started = performance.now();
      await until("10 calls", async () => await scriptCalls(redisPort) - before >= 10, 5_000, 5);
      const intervals = (performance.now() - started) / pollMs;
      const calls = await scriptCalls(redisPort) - before;
      assert(calls <= intervals + 3, `${calls} range calls in ${intervals.toFixed(1)} intervals for 20 followers`);
      const next = followers.map((follower) => follower.next());
      await store.events.append("c", "token", { task_id: "t", i: 1 });
      for (const batch of await Promise.all(next)) assertEquals(batch.value?.map((e: StoredEvent) => e.id), [2]);
      await until("every watcher told the new event", () => watchers.every((b) => b.length === 2), 5_000);
      assert(watchers.every((b) => b[1] === watchers[0][1]), "one batch for all, as on Redis");
    });
  },
);

Deno.test(
  "follow on Upstash: a poll the store does not answer ends the channel's followers with its error; a new one polls again",
  { ignore: missingTools("redis-server") },
  async () => {
    await onUpstash({ pollMs: 20, timeoutMs: 200 }, async ({ store, upstash, signal }) => {
      await store.events.append("c", "token", { task_id: "t", i: 0 });
      const ends: unknown[] = [];
      store.events.watch("c", 0, signal, { take: () => {}, end: (error) => ends.push(error) });
      const follower = store.events.followBatches("c", 0, signal)[Symbol.asyncIterator]();
      assertEquals((await follower.next()).value?.length, 1);
      upstash.delay(5_000);
      const failed = await follower.next().then(() => undefined, (error) => error);
      assert(failed instanceof StoreUnavailableError, String(failed));
      await until("the watcher ended", () => ends.length === 1, 5_000);
      assert(ends[0] instanceof StoreUnavailableError, String(ends[0]));
      upstash.delay(0);
      const again = store.events.followBatches("c", 1, signal)[Symbol.asyncIterator]();
      const next = again.next();
      await store.events.append("c", "token", { task_id: "t", i: 1 });
      assertEquals((await next).value?.map((e: StoredEvent) => e.id), [2]);
    });
  },
);

/** Runs `body` on a Redis store (a redis-server of its own), then closes it. */
async function onRedis(body: (on: { store: Store; redisPort: number; signal: AbortSignal }) => Promise<void>) {
  await using redis = await startRedis();
  const store = await createRedisStore(redis.url, { prefix: `f-${crypto.randomUUID()}:` });
  const controller = new AbortController();
  try {
    await body({ store, redisPort: redis.port, signal: controller.signal });
  } finally {
    controller.abort();
    await store.close();
  }
}

/** Runs `body` on an Upstash store (the stand-in, forwarding to a redis-server of its own), then closes it. */
async function onUpstash(
  options: { pollMs: number; timeoutMs?: number },
  body: (on: { store: Store; upstash: UpstashStandIn; redisPort: number; signal: AbortSignal }) => Promise<void>,
) {
  await using redis = await startRedis();
  await using upstash = await startUpstashStandIn(redis.url);
  const store = createUpstashStore({
    url: upstash.url,
    token: upstash.token,
    prefix: `u-${crypto.randomUUID()}:`,
    ...options,
  });
  const controller = new AbortController();
  try {
    await body({ store, upstash, redisPort: redis.port, signal: controller.signal });
  } finally {
    controller.abort();
    await store.close();
  }
}

/** Scripts redis-server has run (`EVALSHA` and `EVAL`): the Upstash store's reads are scripts. */
async function scriptCalls(port: number): Promise<number> {
  const stats = await redisCommand(port, "INFO commandstats");
  let calls = 0;
  for (const match of stats.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g)) calls += Number(match[1]);
  return calls;
}

/** Sends one inline command to redis-server; resolves with the raw reply. */
async function redisCommand(port: number, command: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode(`${command}\r\n`));
    const buffer = new Uint8Array(65_536);
    const n = await conn.read(buffer);
    return new TextDecoder().decode(buffer.subarray(0, n ?? 0));
  } finally {
    conn.close();
  }
}

/** Clients of redis-server, the asking one excluded. */
async function clientCount(port: number): Promise<number> {
  return Number((await redisCommand(port, "INFO clients")).match(/connected_clients:(\d+)/)![1]) - 1;
}
