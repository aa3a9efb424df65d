import { assert, assertEquals, assertRejects } from "../tests/assert.ts";
import { createEventStreams, type EventSink } from "./sse.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("createEventStreams() streams what the producer writes, then ends", async () => {
  const response = createEventStreams(60_000).respond(async (sink) => {
    await sink.write("event: a\ndata: {}\n\n");
    await sink.write("event: b\ndata: {}\n\n");
  }, { "x-accel-buffering": "no" });
  assertEquals(response.headers.get("content-type"), "text/event-stream");
  assertEquals(response.headers.get("x-accel-buffering"), "no");
  assertEquals(await response.text(), "event: a\ndata: {}\n\nevent: b\ndata: {}\n\n");
});

Deno.test("createEventStreams() holds a producer back while its client does not read", async () => {
  let written = 0;
  const response = createEventStreams(60_000).respond(async (sink) => {
    for (let i = 0; i < 5; i++) {
      await sink.write(`data: ${i}\n\n`);
      written++;
    }
  });
  await sleep(20);
  assert(written <= 1, `${written} writes went through with nobody reading`);
  const text = await response.text();
  assertEquals(written, 5);
  assertEquals(text.match(/data: \d/g)?.length, 5);
});

Deno.test("createEventStreams() aborts the producer's signal when the client leaves", async () => {
  let sink!: EventSink;
  let finished!: () => void;
  const done = new Promise<void>((resolve) => finished = resolve);
  const response = createEventStreams(60_000).respond((s) => {
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
  const streams = createEventStreams(60);
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
  await sleep(250);
  stop.abort();
  const [busyText, quietText] = await Promise.all(texts);
  assert(!busyText.includes(": ping"), busyText);
  assert((quietText.match(/: ping/g)?.length ?? 0) >= 2, quietText);
});
