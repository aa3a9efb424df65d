import { assert, assertEquals, assertMatch } from "../../testing/assert.ts";
import { startRedis } from "../../testing/redis_server.ts";
import { sseEvents, type SseFrame, sseFrames } from "../../testing/sse.ts";
import { missingTools } from "../../testing/tools.ts";
import { until } from "../../testing/until.ts";
import { createMemoryStore, openStore, type Store } from "../../lib/store/mod.ts";
import { createTaskRunner, demoTask } from "../../lib/tasks/mod.ts";
import type { StreamConfig } from "../mod.ts";
import { testApp } from "../../testing/service.ts";
import { sleep } from "../../lib/time/mod.ts";

function setup(store: Store, streams: Partial<StreamConfig> = {}) {
  const { app, service } = testApp({ store, configure: (c) => ({ ...c, streams: { ...c.streams, ...streams } }) });
  const runtime = service.scope().runner;
  const submit = async (input: Record<string, unknown>, session_id?: string) => {
    const res = await app.request("/tasks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ kind: "demo", input, session_id }),
    });
    return (await res.json()).task_id as string;
  };
  const get = async (path: string, headers: Record<string, string> = {}) => await app.request(path, { headers });
  return {
    app,
    runtime,
    submit,
    get,
    [Symbol.asyncDispose]: () => service.close(),
  };
}

/** `promise`, or a failure after `ms` (a stream that should end but does not). */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) =>
    timer = setTimeout(() => reject(new Error(`still open after ${ms} ms`)), ms)
  );
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const ids = (frames: { id?: string }[]) => frames.map((f) => Number(f.id));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

async function suite(t: Deno.TestContext, open: () => Promise<Store>) {
  await t.step("task stream: replays a finished task's frames with ids, kinds and task_id, then ends", async () => {
    await using s = setup(await open());
    const id = await s.submit({ steps: 1, delay_ms: 0, tokens: ["a", "b"] });
    await sseEvents((await s.get(`/tasks/${id}/stream`)).body!); // wait for it to finish
    const res = await s.get(`/tasks/${id}/stream`);
    assertEquals(
      [
        res.status,
        res.headers.get("content-type"),
        res.headers.get("cache-control"),
        res.headers.get("x-accel-buffering"),
      ],
      [200, "text/event-stream", "no-cache", "no"],
    );
    const frames = await sseEvents(res.body!);
    assertEquals(frames.map((f) => [f.id, f.event, f.data]), [
      ["1", "update", { task_id: id, message: "step 1 of 1", update_type: "info" }],
      ["2", "token", { task_id: id, message: "a" }],
      ["3", "token", { task_id: id, message: "b" }],
      ["4", "done", { task_id: id, result: { answer: "ab" } }],
    ]);
  });

  await t.step("task stream: live events of a running task with its subtask_* events; ends after done", async () => {
    await using s = setup(await open());
    const id = await s.submit({ steps: 3, delay_ms: 30, tokens: ["x"], children: 2 });
    const frames = await sseEvents((await s.get(`/tasks/${id}/stream`)).body!);
    assertEquals(ids(frames), range(1, frames.length), "ids without gap or duplicate");
    const kinds = frames.map((f) => f.event);
    assertEquals(kinds.filter((k) => k === "subtask_spawned").length, 2);
    assertEquals(kinds.filter((k) => k === "subtask_done").length, 2);
    assertEquals(kinds.filter((k) => k === "update").length, 3);
    assertEquals(kinds.at(-1), "done");
    const spawned = frames.find((f) => f.event === "subtask_spawned")!;
    assertEquals(Object.keys(spawned.data!).sort(), ["spawn_key", "subtask_id", "task_id"]);
  });

  await t.step(
    "task stream: replay=false sends only new events; events= filters but the stream still ends",
    async () => {
      await using s = setup(await open());
      const id = await s.submit({ steps: 1, delay_ms: 0, tokens: ["a", "b", "c"], ask: "Go?" });
      await sseEvents((await s.get(`/tasks/${id}/stream`)).body!, (f) => f.event === "input_required");
      const live = await s.get(`/tasks/${id}/stream?replay=false`);
      const filtered = await s.get(`/tasks/${id}/stream?events=done,cancelled`);
      const tokens = await s.get(`/tasks/${id}/stream?events=token`);
      await s.runtime.input(id, "yes");
      const liveFrames = await sseEvents(live.body!);
      assertEquals(liveFrames.map((f) => [f.id, f.event]), [["6", "update"], ["7", "done"]]);
      assertEquals((await sseEvents(filtered.body!)).map((f) => f.event), ["done"]);
      assertEquals((await sseEvents(tokens.body!)).map((f) => f.data?.message), ["a", "b", "c"]);
    },
  );

  await t.step("task stream: Last-Event-ID resumes after that id; after the final event → 204", async () => {
    await using s = setup(await open());
    const id = await s.submit({ steps: 2, delay_ms: 0, tokens: ["a", "b"] });
    const all = await sseEvents((await s.get(`/tasks/${id}/stream`)).body!);
    const resumed = await sseEvents((await s.get(`/tasks/${id}/stream`, { "last-event-id": "3" })).body!);
    assertEquals(resumed.map((f) => f.id), all.slice(3).map((f) => f.id));
    const ended = await s.get(`/tasks/${id}/stream`, { "last-event-id": all.at(-1)!.id! });
    assertEquals([ended.status, await ended.text()], [204, ""]);
    assertEquals((await s.get(`/tasks/${id}/stream?replay=false`)).status, 204);
  });

  await t.step(
    "task stream: 404 unknown task; 422 bad replay, events or Last-Event-ID — before any stream",
    async () => {
      await using s = setup(await open());
      const id = await s.submit({ steps: 0 });
      const unknown = await s.get("/tasks/nope/stream");
      assertEquals([unknown.status, unknown.headers.get("content-type")], [404, "application/problem+json"]);
      const long = "x".repeat(201); // over the ids' 200 characters: 422, as GET /tasks/{id} says
      assertEquals([(await s.get(`/tasks/${long}/stream`)).status, (await s.get(`/tasks/${long}`)).status], [422, 422]);
      for (
        const [path, headers] of [
          [`/tasks/${id}/stream?replay=yes`, {}],
          [`/tasks/${id}/stream?events=token,bogus`, {}],
          [`/tasks/${id}/stream`, { "last-event-id": "abc" }],
        ] as const
      ) {
        const res = await s.get(path, headers);
        const body = await res.json();
        assertEquals([res.status, res.headers.get("content-type")], [422, "application/problem+json"], path);
        assert(body.errors.length === 1, JSON.stringify(body));
      }
      const bogus = await (await s.get(`/tasks/${id}/stream?events=token,bogus`)).json();
      assert(
        String(bogus.errors[0].message).startsWith("Unknown event kind 'bogus'; use: update, token"),
        bogus.errors[0].message,
      );
    },
  );

  await t.step(
    "session stream: every task of the session, with the session channel's ids; global needs GLOBAL",
    async () => {
      await using s = setup(await open());
      const res = await s.get("/sessions/s-7/stream");
      assertEquals(res.status, 200);
      const a = await s.submit({ steps: 1, delay_ms: 0 }, "s-7");
      const b = await s.submit({ steps: 1, delay_ms: 0 }, "s-7");
      await s.submit({ steps: 1, delay_ms: 0 }, "elsewhere");
      const frames = await sseEvents(res.body!, (_, n) => n === 4);
      assertEquals(ids(frames), [1, 2, 3, 4]);
      assertEquals(new Set(frames.map((f) => f.data?.task_id)), new Set([a, b]));
      assertEquals((await s.get("/stream")).status, 404);
    },
  );

  await t.step("a stream that is off costs no writes: its shared channel stays empty", async () => {
    for (
      const [streams, written] of [
        [{}, { session: 1, global: 0 }],
        [{ scopes: ["TASK", "GLOBAL"] }, { session: 0, global: 1 }],
        [{ enabled: false }, { session: 0, global: 0 }],
      ] as const
    ) {
      const store = await open();
      await using s = setup(store, streams);
      const task = await s.submit({ steps: 0, delay_ms: 0 }, "s-off");
      await until("the task is done", async () => (await store.tasks.get(task))?.status === "done");
      assertEquals((await store.events.range(`task:${task}`, 0)).length > 0, true, "the task's channel always");
      const count = async (channel: string) => (await store.events.range(channel, 0)).length > 0 ? 1 : 0;
      assertEquals({ session: await count("session:s-off"), global: await count("global") }, written);
    }
  });

  await t.step("disabled streaming and scopes answer 404 problems naming the variable", async () => {
    const store = await open();
    const other = createTaskRunner({ store, definitions: [demoTask], log: () => {} });
    const id = await other.submit({ kind: "demo", input: { steps: 0 } });
    await other.close();
    {
      await using s = setup(store, { enabled: false });
      for (const path of [`/tasks/${id.task_id}/stream`, "/sessions/x/stream", "/stream"]) {
        const res = await s.get(path);
        assertEquals([res.status, (await res.json()).detail], [
          404,
          "Streaming is not enabled on this server (STREAMING_ENABLED=false)",
        ]);
      }
    }
    await using s = setup(await open(), { scopes: ["GLOBAL"] });
    assertEquals(
      (await (await s.get("/sessions/x/stream")).json()).detail,
      "The SESSION stream is not enabled on this server; add SESSION to CHANNEL_SCOPES",
    );
    assertEquals((await s.get("/tasks/x/stream")).status, 404);
    const global = await s.get("/stream");
    assertEquals(global.status, 200);
    const task = await s.submit({ steps: 1, delay_ms: 0 });
    const frames = await sseEvents(global.body!, (f) => f.event === "done");
    assert(frames.every((f) => f.data?.task_id === task));
  });

  await t.step("an idle stream gets `: ping` heartbeats", async () => {
    await using s = setup(await open(), { heartbeatMs: 40 });
    const res = await s.get("/sessions/quiet/stream");
    const seen: string[] = [];
    for await (const frame of sseFrames(res.body!)) {
      seen.push(frame.comment ?? (frame.retry ? "retry" : "event"));
      if (seen.length === 3) break;
    }
    assertEquals(seen, ["retry", "ping", "ping"]);
  });

  await t.step("events=,,, (only empty names) sends every kind, as events= does; empty names are ignored", async () => {
    await using s = setup(await open());
    const id = await s.submit({ steps: 1, delay_ms: 0, tokens: ["a"] });
    const all = await sseEvents((await s.get(`/tasks/${id}/stream`)).body!);
    for (const events of ["", ",,,", " , "]) {
      const res = await s.get(`/tasks/${id}/stream?events=${encodeURIComponent(events)}`);
      assertEquals((await sseEvents(res.body!)).map((f) => f.id), all.map((f) => f.id), `events=${events}`);
    }
    const tokens = await sseEvents((await s.get(`/tasks/${id}/stream?events=token,,`)).body!);
    assertEquals(tokens.map((f) => f.event), ["token"]);
  });

  await t.step("task stream: a Last-Event-ID past the last event still ends when the task ends", async () => {
    await using s = setup(await open());
    const id = await s.submit({ steps: 1, delay_ms: 0, tokens: ["a"], ask: "Go?" });
    await sseEvents((await s.get(`/tasks/${id}/stream`)).body!, (f) => f.event === "input_required");
    const ahead = await s.get(`/tasks/${id}/stream`, { "last-event-id": "100" });
    assertEquals(ahead.status, 200);
    await s.runtime.input(id, "yes");
    assertEquals(await within(5_000, sseEvents(ahead.body!)), [], "ends after done, sending nothing up to id 100");
    // the task has ended: the same request ends at once
    const ended = await s.get(`/tasks/${id}/stream`, { "last-event-id": "100" });
    assertEquals([ended.status, await ended.text()], [204, ""]);
  });

  await t.step(
    "task stream: a task that disappears from the store ends its stream with a comment saying so",
    async () => {
      const store = await open();
      await using s = setup(store, { heartbeatMs: 60 });
      const id = await s.submit({ steps: 0, ask: "Go?" });
      const res = await s.get(`/tasks/${id}/stream`);
      const frames: SseFrame[] = [];
      const reading = within(
        5_000,
        (async () => {
          for await (const frame of sseFrames(res.body!)) frames.push(frame);
        })(),
      );
      for (let i = 0; i < 100 && !frames.some((f) => f.event === "input_required"); i++) await sleep(10);
      await store.tasks.remove(id); // gone without a final event, as when a store restarts empty
      await reading;
      const last = frames.at(-1)!;
      assertMatch(String(last.comment), new RegExp(`^task ${id} no longer exists \\(deleted, or the store lost it\\)`));
    },
  );

  await t.step(
    "a client that stops reading is cut off past its buffer with a comment; Last-Event-ID resumes with nothing lost",
    async () => {
      await using s = setup(await open(), { bufferBytes: 4_096 });
      const stalled = sseFrames((await s.get("/sessions/busy/stream")).body!)[Symbol.asyncIterator]();
      const tokens = Array.from({ length: 300 }, (_, i) => `token-${i}`);
      const id = await s.submit({ steps: 0, tokens }, "busy");
      const first: SseFrame[] = [];
      while (first.filter((f) => f.event).length < 20) first.push((await stalled.next()).value!);
      // This client reads no more while the task emits ~30 KB; then it reads what it was sent.
      while ((await (await s.get(`/tasks/${id}`)).json()).status !== "done") await sleep(10);
      await within(
        5_000,
        (async () => {
          for (let r = await stalled.next(); !r.done; r = await stalled.next()) first.push(r.value);
        })(),
      );
      assertMatch(String(first.at(-1)!.comment), /fell more than 4096 bytes behind.*reconnect with Last-Event-ID/);
      const got = ids(first.filter((f) => f.event));
      assertEquals(got, range(1, got.length));
      const resumed = await s.get("/sessions/busy/stream", { "last-event-id": String(got.length) });
      const rest = await within(5_000, sseEvents(resumed.body!, (f) => f.event === "done"));
      assertEquals(ids(rest), range(got.length + 1, tokens.length + 1), "the rest, once, in order");
    },
  );

  await t.step("replay then live under a fast producer: every subscriber gets 1..n once, in order", async () => {
    await using s = setup(await open());
    const tokens = Array.from({ length: 1500 }, (_, i) => `t${i}`);
    const id = await s.submit({ steps: 0, tokens });
    const readers: Promise<number[]>[] = [];
    for (let i = 0; i < 6; i++) {
      readers.push(s.get(`/tasks/${id}/stream`).then(async (res) => ids(await sseEvents(res.body!))));
      await new Promise((r) => setTimeout(r, 3 * i));
    }
    for (const got of await Promise.all(readers)) assertEquals(got, range(1, tokens.length + 1));
  });
}

Deno.test("streams: memory store", (t) => suite(t, () => Promise.resolve(createMemoryStore())));

Deno.test("streams: Redis (real redis-server)", { ignore: missingTools("redis-server") }, async (t) => {
  await using redis = await startRedis();
  await suite(t, () => openStore({ url: redis.url, prefix: `sse-${crypto.randomUUID()}:` }));

  await t.step("streams open no Redis connection; a channel nobody follows any more is unsubscribed", async () => {
    const clients = () => redisClientCount(redis.port);
    const prefix = `rel-${crypto.randomUUID()}:`;
    const subscribers = async () =>
      Number((await redisReply(redis.port, `PUBSUB NUMSUB ${prefix}{t}:n:session:idle`)).match(/:(\d+)\r\n$/)![1]);
    await using s = setup(await openStore({ url: redis.url, prefix }));
    await new Promise((r) => setTimeout(r, 200)); // the runtime's control follower subscribes first
    const before = await clients();
    const streams = await Promise.all([1, 2, 3].map(() => s.get("/sessions/idle/stream")));
    const readers = streams.map((res) => res.body!.getReader());
    for (const reader of readers) await reader.read(); // the retry frame
    for (let i = 0; i < 50 && await subscribers() === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assertEquals(await subscribers(), 1, "the channel's followers share one subscription");
    assertEquals(await clients(), before, "and the process's one subscriber connection");
    for (const reader of readers) await reader.cancel();
    for (let i = 0; i < 50 && await subscribers() > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assertEquals(await subscribers(), 0, "unsubscribed once nobody follows");
  });
});

Deno.test("streams: 1,000 channels followed by one process open no Redis connection (at most 20 in all)", {
  ignore: missingTools("redis-server"),
}, async () => {
  await using redis = await startRedis();
  const clients = () => redisClientCount(redis.port);
  const store = await openStore({ url: redis.url, prefix: `mux-${crypto.randomUUID()}:` });
  await using s = setup(store);
  await new Promise((r) => setTimeout(r, 200)); // the runtime's control follower connects first
  const before = await clients();
  const streams = await Promise.all(
    Array.from({ length: 1_000 }, (_, i) => s.get(`/sessions/s${i}/stream?replay=false`)),
  );
  const readers = streams.map((res) => sseFrames(res.body!)[Symbol.asyncIterator]());
  for (const reader of readers) await reader.next(); // the retry frame: each stream is attached
  // Events reach the streams of channels that joined while the readers were blocked, without waiting out a block.
  for (const i of [0, 500, 999]) {
    const started = performance.now();
    await s.submit({ steps: 0, tokens: ["hi"] }, `s${i}`);
    let frame = (await readers[i].next()).value;
    while (frame?.event !== "token") frame = (await readers[i].next()).value;
    assertEquals(frame.data?.message, "hi");
    const ms = performance.now() - started;
    assert(ms < 2_000, `session s${i}'s token took ${ms.toFixed(0)} ms`);
  }
  let most = 0;
  for (let i = 0; i < 10; i++, await new Promise((r) => setTimeout(r, 50))) most = Math.max(most, await clients());
  assertEquals(most - before, 0, `${most - before} more Redis clients for 1,000 channels`);
  assert(most <= 20, `${most} Redis clients`);
  await Promise.all(readers.map((reader) => reader.return?.(undefined)));
  for (let i = 0; i < 100 && await clients() > before; i++) await new Promise((r) => setTimeout(r, 20));
  assertEquals(await clients(), before, "no connection is left behind");
});

/** One inline command's raw reply (a short one: it fits one read). */
async function redisReply(port: number, command: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode(`${command}\r\n`));
    const buffer = new Uint8Array(4096);
    return new TextDecoder().decode(buffer.subarray(0, await conn.read(buffer) ?? 0));
  } finally {
    conn.close();
  }
}

/** How many clients redis-server has, the asking one excluded (CLIENT LIST over a raw socket). */
async function redisClientCount(port: number): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode("CLIENT LIST\r\n"));
    let text = "";
    const buffer = new Uint8Array(65536);
    while (!/^\$(\d+)\r\n/.test(text) || text.length < text.indexOf("\r\n") + 2 + Number(text.match(/^\$(\d+)/)![1])) {
      const n = await conn.read(buffer);
      if (n === null) break;
      text += new TextDecoder().decode(buffer.subarray(0, n));
    }
    return text.split("\n").filter((line) => line.startsWith("id=")).length - 1;
  } finally {
    conn.close();
  }
}
