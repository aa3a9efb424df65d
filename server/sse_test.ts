import { assert, assertEquals, assertMatch, assertRejects } from "../testing/assert.ts";
import { until } from "../testing/until.ts";
import { Draining } from "./errors.ts";
import { createEventStreams, cutOffComment, type EventSink, StreamEnded } from "./sse.ts";
import { sleep } from "../lib/time/mod.ts";

Deno.test("createEventStreams() streams what the producer writes, then ends", async () => {
  const response = createEventStreams({ heartbeatMs: 60_000, bufferBytes: 1_000_000 }).respond(async (sink) => {
    await sink.write("event: a\ndata: {}\n\n");
    await sink.write("event: b\ndata: {}\n\n");
  }, { "x-accel-buffering": "no" });
  assertEquals(response.headers.get("content-type"), "text/event-stream");
  assertEquals(response.headers.get("x-accel-buffering"), "no");
  assertEquals(await response.text(), "event: a\ndata: {}\n\nevent: b\ndata: {}\n\n");
});

Deno.test("createEventStreams() cuts off a client that stops reading once its buffer is full, after whole frames", async () => {
  const frame = (i: number) => `id: ${i}\ndata: ${"x".repeat(87 - String(i).length)}\n\n`; // 100 bytes
  let sink!: EventSink;
  let written = 0;
  let failure: unknown;
  const response = createEventStreams({ heartbeatMs: 60_000, bufferBytes: 1_000 }).respond(async (s) => {
    sink = s;
    try {
      await s.write(frame(1));
      written++;
      await s.drained(); // the client took frame 1
      for (let i = 2; i <= 100; i++) {
        await s.write(frame(i));
        written++;
      }
    } catch (error) {
      failure = error;
    }
  });
  const reader = response.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value); // the first frame went out at once
  assertEquals(first, frame(1));
  await sleep(10); // nobody reads now: the next frames wait in the stream's buffer, then it is cut off
  assert(failure instanceof StreamEnded, `the producer's write failed: ${failure}`);
  assertEquals(written, 11, "frame 1 sent, 2-11 buffered (1,000 bytes), 12 over the limit");
  assert(sink.signal.aborted, "the producer's signal aborts (its follower is released)");
  let rest = "";
  for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
  assertEquals(rest, `: ${cutOffComment(1_000)}\n\n`, "the buffered frames are dropped: the log keeps them");
  assert(/reconnect with Last-Event-ID/.test(rest));
});

Deno.test("createEventStreams(): end() sends a last comment after what was written; drained() waits for the client", async () => {
  let drained = false;
  const response = createEventStreams({ heartbeatMs: 60_000, bufferBytes: 1_000_000 }).respond(async (sink) => {
    await sink.write("data: 1\n\n");
    await sink.write("data: 2\n\n");
    await sink.drained();
    drained = true;
    sink.end("task gone; this stream ends");
    await assertRejects(() => sink.write("data: 3\n\n"), /ended the stream/);
  });
  await sleep(10);
  assert(!drained, "frame 2 is waiting for the client");
  assertEquals(await response.text(), "data: 1\n\ndata: 2\n\n: task gone; this stream ends\n\n");
  assert(drained);
});

Deno.test("createEventStreams(): a quiet stream's check runs at its ping, and a reason ends it with that comment", async () => {
  const streams = createEventStreams({ heartbeatMs: 60, bufferBytes: 1_000_000 });
  let checks = 0;
  let gone = false;
  const response = streams.respond(
    (sink) => new Promise((resolve) => sink.signal.addEventListener("abort", () => resolve())),
    {},
    () => {
      checks++;
      return Promise.resolve(gone ? "the task is gone" : undefined);
    },
  );
  const text = response.text();
  while (checks < 2) await sleep(10);
  gone = true;
  assertEquals((await text).replaceAll(": ping\n\n", ""), ": the task is gone\n\n");
});

Deno.test("createEventStreams() aborts the producer's signal when the client leaves", async () => {
  let sink!: EventSink;
  let finished!: () => void;
  const done = new Promise<void>((resolve) => finished = resolve);
  const response = createEventStreams({ heartbeatMs: 60_000, bufferBytes: 1_000_000 }).respond((s) => {
    sink = s;
    return done;
  });
  const reader = response.body!.getReader();
  await sink.write("retry: 1000\n\n");
  await reader.read();
  await reader.cancel();
  assert(sink.signal.aborted);
  await assertRejects(() => sink.write("data: late\n\n"), /The client has gone/);
  finished();
});

Deno.test("createEventStreams() pings only the streams that stayed quiet", async () => {
  const streams = createEventStreams({ heartbeatMs: 300, bufferBytes: 1_000_000 });
  const stop = new AbortController();
  const busy = streams.respond(async (sink) => {
    while (!stop.signal.aborted) {
      await sink.write("data: tick\n\n");
      await sleep(5);
    }
  });
  const quiet = streams.respond(async (sink) => {
    await sink.write("retry: 1000\n\n");
    await new Promise((resolve) => stop.signal.addEventListener("abort", resolve));
  });
  const texts = [busy, quiet].map((response) => response.text());
  await sleep(1_000); // a busy stream writes every 5 ms, far inside the 200 ms of silence that earn a ping
  stop.abort();
  const [busyText, quietText] = await Promise.all(texts);
  assert(!busyText.includes(": ping"), busyText);
  assert((quietText.match(/: ping/g)?.length ?? 0) >= 2, quietText);
});

Deno.test("createEventStreams() hands encoded frames to the connection as they are, never copied", async () => {
  const big = new TextEncoder().encode(`data: ${"x".repeat(40_000)}\n\n`);
  const small = Array.from(
    { length: 300 },
    (_, i) => new TextEncoder().encode(`id: ${i}\ndata: ${"y".repeat(90)}\n\n`),
  );
  let sink!: EventSink;
  const response = createEventStreams({ heartbeatMs: 60_000, bufferBytes: 1_000_000 }).respond((s) => {
    sink = s;
    return new Promise((resolve) => s.signal.addEventListener("abort", () => resolve()));
  });
  const reader = response.body!.getReader();
  const first = reader.read();
  await sink.write([big]);
  assert((await first).value === big, "one frame goes as it is: the bytes every stream shares, not a copy");
  await sink.write(small); // waits in the buffer: the connection has not asked yet
  for (const frame of small) {
    assert((await reader.read()).value === frame, "each waiting frame goes as it is too, in order");
  }
  sink.end("bye");
  await reader.cancel();
});

Deno.test("createEventStreams(): a drain ends each open stream with a retry hint after what was written; a new stream is a 503", async () => {
  const drain = new AbortController();
  const streams = createEventStreams({
    heartbeatMs: 60_000,
    bufferBytes: 1_000_000,
    drain: { signal: drain.signal, retryMs: 2_500 },
  });
  const producers: EventSink[] = [];
  const open = [1, 2].map((n) =>
    streams.respond(async (sink) => {
      producers.push(sink);
      await sink.write(`id: ${n}\ndata: {}\n\n`);
      await new Promise((resolve) => sink.signal.addEventListener("abort", resolve)); // follows until the stream ends
    })
  );
  await until("both producers run", () => producers.length === 2);
  drain.abort();
  const texts = await Promise.all(open.map((response) => response.text()));
  for (const [i, text] of texts.entries()) {
    assertMatch(
      text,
      new RegExp(`^id: ${i + 1}\ndata: \\{\\}\n\nretry: 2500\n: [^\n]*reconnect with Last-Event-ID[^\n]*\n\n$`),
    );
  }
  assert(producers.every((sink) => sink.signal.aborted), "each producer's signal aborts");
  let refused: unknown;
  try {
    streams.respond(() => Promise.resolve());
  } catch (error) {
    refused = error;
  }
  assert(refused instanceof Draining, `a stream asked for while draining is refused: ${refused}`);
  assertEquals(
    [refused.status, refused.headers["retry-after"]],
    [503, "3"],
    "Retry-After in whole seconds, rounded up",
  );
});
