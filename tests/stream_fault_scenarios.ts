/**
 * Event streams of a server process whose redis-server stalls (SIGSTOP), dies, or comes back
 * empty, for the Deno server (`task_e2e_test.ts`) and the Node bundle (`task_node_test.ts`):
 * every stream route answers 503 with `Retry-After` before streaming while the store does not
 * answer, streams again once it does, and an open stream whose task or events the store lost
 * ends with a comment saying so. And a client that stops reading: it is cut off once it is
 * further behind than the stream's buffer, with a comment telling it to resume.
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { type RedisServer, startRedis } from "../testing/redis_server.ts";
import { type ServerProcess, startServer } from "../testing/server_process.ts";
import { type SseFrame, sseFrames } from "../testing/sse.ts";
import type { TaskScenario } from "./task_scenarios.ts";
import { sleep } from "../lib/time/mod.ts";

const env = (redis: RedisServer) => ({
  STORE_URL: redis.url,
  STORE_KEY_PREFIX: `faults-${crypto.randomUUID()}:`,
  STORE_TIMEOUT_MS: "300",
  CHANNEL_SCOPES: "TASK,SESSION,GLOBAL",
  STREAM_HEARTBEAT_MS: "300",
});

async function submit(server: ServerProcess, input: Record<string, unknown>, session_id?: string): Promise<string> {
  const res = await fetch(`${server.url}/tasks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ kind: "demo", input, session_id }),
  });
  assertEquals(res.status, 201);
  return (await res.json()).task_id;
}

/** Each stream route's answer while the store does not answer: a 503 problem with Retry-After, in time. */
async function expect503(server: ServerProcess, paths: string[], why: string) {
  await Promise.all(paths.map(async (path) => {
    const started = performance.now();
    const res = await fetch(`${server.url}${path}`, { signal: AbortSignal.timeout(10_000) });
    const body = await res.text();
    assertEquals(
      [res.status, res.headers.get("content-type"), res.headers.get("retry-after")],
      [503, "application/problem+json", "1"],
      `${why}: ${path}: ${body}`,
    );
    assertMatch(JSON.parse(body).detail, /did not answer: Redis at 127\.0\.0\.1:\d+ /);
    const ms = performance.now() - started;
    assert(ms < 2_000, `${why}: ${path} answered 503 after ${ms.toFixed(0)} ms (STORE_TIMEOUT_MS=300)`);
  }));
}

/** Waits until every path answers a 200 stream again. */
async function expectStreams(server: ServerProcess, paths: string[], why: string) {
  for (const path of paths) {
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      const res = await fetch(`${server.url}${path}`, { signal: AbortSignal.timeout(5_000) });
      status = res.status;
      await res.body?.cancel();
      if (status !== 200) await sleep(100);
    }
    assertEquals(status, 200, `${why}: ${path} streams again`);
  }
}

/** Reads a stream's frames in the background until the server ends it (or `stop()`). */
async function reader(server: ServerProcess, path: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const res = await fetch(`${server.url}${path}`, { headers, signal: controller.signal });
  assertEquals(res.status, 200, path);
  const frames: SseFrame[] = [];
  const ended = (async () => {
    for await (const frame of sseFrames(res.body!)) frames.push(frame);
  })();
  return {
    frames,
    ended,
    stop() {
      controller.abort();
      ended.catch(() => {});
    },
    async until(test: (frame: SseFrame) => boolean, what: string) {
      for (let i = 0; i < 200 && !frames.some(test); i++) await sleep(25);
      assert(frames.some(test), `no ${what} in ${JSON.stringify(frames)}`);
    },
  };
}

async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => timer = setTimeout(() => reject(new Error(what)), ms));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

export const STREAM_FAULT_SCENARIOS: readonly TaskScenario[] = [
  {
    name: "Redis stalled (SIGSTOP), then killed: every stream route answers 503 with Retry-After, then streams again",
    tools: ["redis-server"],
    async run(command) {
      await using redis = await startRedis();
      await using server = await startServer(command, env(redis));
      const id = await submit(server, { steps: 0 }, "s-faults");
      const paths = [
        `/tasks/${id}/stream`,
        "/sessions/s-faults/stream",
        "/sessions/s-faults/stream?replay=false",
        "/stream",
      ];
      await expectStreams(server, paths, "before");
      try {
        redis.pause();
        await expect503(server, paths, "Redis stalled");
        redis.resume();
        await expectStreams(server, paths, "after SIGCONT");
        await redis.stop();
        await expect503(server, paths, "Redis down");
      } finally {
        redis.resume();
      }
      await redis.start();
      await expectStreams(server, paths.slice(1), "after a restart"); // the task is gone with the data
    },
  },
  {
    name: "Redis restarted empty: an open task stream and session stream end with a comment saying what was lost",
    tools: ["redis-server"],
    async run(command) {
      await using redis = await startRedis();
      await using server = await startServer(command, env(redis));
      const id = await submit(server, { steps: 1, delay_ms: 0, ask: "Go on?" }, "s-restart");
      const task = await reader(server, `/tasks/${id}/stream`);
      const session = await reader(server, "/sessions/s-restart/stream");
      await task.until((f) => f.event === "input_required", "input_required on the task stream");
      await session.until((f) => f.event === "input_required", "input_required on the session stream");
      await redis.stop();
      await redis.start(); // empty: the task, its events and the session's are gone
      await within(15_000, Promise.all([task.ended, session.ended]), "the streams are still open");
      assertMatch(
        String(task.frames.at(-1)?.comment),
        new RegExp(`^task ${id} no longer exists \\(deleted, or the store lost it\\); this stream ends$`),
      );
      assertMatch(
        String(session.frames.at(-1)?.comment),
        /^the store lost this channel's events \(it now ends at id 0/,
      );
      // A client that resumes sees the task gone; the session starts again from its (new) beginning.
      assertEquals(
        (await fetch(`${server.url}/tasks/${id}/stream`, { headers: { "last-event-id": "2" } })).status,
        404,
      );
      const again = await reader(server, "/sessions/s-restart/stream", { "last-event-id": "2" });
      const next = await submit(server, { steps: 0 }, "s-restart");
      await again.until((f) => f.event === "done", "the new task's done after the restart");
      assertEquals(again.frames.filter((f) => f.event).map((f) => [f.id, f.data?.task_id]), [["1", next]]);
      again.stop();
    },
  },
  {
    name: "a client that stops reading is cut off past STREAM_BUFFER_BYTES, after whole frames and a comment",
    tools: [],
    async run(command) {
      await using server = await startServer(command, { STORE_URL: "memory:", STREAM_BUFFER_BYTES: "65536" });
      const { hostname, port } = new URL(server.url);
      const conn = await Deno.connect({ hostname, port: Number(port) });
      await conn.write(
        new TextEncoder().encode(
          `GET /sessions/s-busy/stream HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`,
        ),
      );
      // ~13 MB for the session while this client reads nothing: more than the kernel's and the runtime's buffers hold.
      const token = "x".repeat(2_000);
      const ids = [];
      for (let i = 0; i < 8; i++) {
        ids.push(await submit(server, { steps: 0, tokens: Array(400).fill(token) }, "s-busy"));
      }
      for (const id of ids) {
        for (let i = 0; i < 400; i++, await sleep(25)) {
          if ((await (await fetch(`${server.url}/tasks/${id}`)).json()).status === "done") break;
        }
      }
      const raw = await within(30_000, new Response(conn.readable).arrayBuffer(), "the cut-off stream did not end");
      const frames = await Array.fromAsync(sseFrames(new Response(dechunk(new Uint8Array(raw))).body!));
      const events = frames.filter((f) => f.event);
      assertEquals(events.map((f) => Number(f.id)), events.map((_, i) => i + 1), "whole frames, in order");
      assert(events.length < 8 * 401, `${events.length} events: the client was not cut off`);
      assertMatch(String(frames.at(-1)?.comment), /fell more than 65536 bytes behind.*reconnect with Last-Event-ID/);
    },
  },
];

/** The body of a chunked HTTP/1.1 response (headers and all, as read from the socket). */
function dechunk(raw: Uint8Array): Uint8Array<ArrayBuffer> {
  const text = new TextDecoder("latin1").decode(raw);
  let at = text.indexOf("\r\n\r\n") + 4;
  const parts: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const end = text.indexOf("\r\n", at);
    const size = parseInt(text.slice(at, end), 16);
    if (!(size > 0)) break;
    parts.push(raw.subarray(end + 2, end + 2 + size));
    length += size;
    at = end + 2 + size + 2;
  }
  const body = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    body.set(part, offset);
    offset += part.length;
  }
  return body;
}
