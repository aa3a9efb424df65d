import { assert, assertEquals } from "../../tests/assert.ts";
import { startRedis } from "../../tests/redis_server.ts";
import { sseEvents, sseFrames } from "../../tests/sse.ts";
import { missingTools } from "../../tests/tools.ts";
import { createMemoryStore, openStore, type Store } from "../../lib/store/mod.ts";
import { createTaskRunner, demoTask } from "../../lib/tasks/mod.ts";
import { createApp, DEFAULT_STREAMS, type StreamConfig } from "../mod.ts";

function setup(store: Store, streams: Partial<StreamConfig> = {}) {
  const runtime = createTaskRunner({ store, definitions: [demoTask], log: () => {} });
  const app = createApp({ store, tasks: runtime, streams: { ...DEFAULT_STREAMS, ...streams }, log: () => {} });
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
    async [Symbol.asyncDispose]() {
      await runtime.close();
      await new Promise((r) => setTimeout(r, 30));
      await store.close();
    },
  };
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

  await t.step("a disconnected client releases its Redis reader connection", async () => {
    const clients = () => redisClientCount(redis.port);
    await using s = setup(await openStore({ url: redis.url, prefix: `rel-${crypto.randomUUID()}:` }));
    await new Promise((r) => setTimeout(r, 200)); // the runtime's control follower connects first
    const before = await clients();
    const streams = await Promise.all([1, 2, 3].map(() => s.get("/sessions/idle/stream")));
    const readers = streams.map((res) => res.body!.getReader());
    for (const reader of readers) await reader.read(); // the retry frame: the follower is attached
    await new Promise((r) => setTimeout(r, 100));
    assertEquals(await clients(), before + 1, "followers of one channel share one reader connection");
    for (const reader of readers) await reader.cancel();
    for (let i = 0; i < 50 && await clients() > before; i++) await new Promise((r) => setTimeout(r, 20));
    assertEquals(await clients(), before, "the reader connection is closed once nobody follows");
  });
});

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
