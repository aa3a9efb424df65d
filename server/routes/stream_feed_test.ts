import { assert, assertEquals } from "../../testing/assert.ts";
import { createMemoryStore } from "../../lib/store/mod.ts";
import { createEventStreams } from "../sse.ts";
import { feedStream } from "./stream_feed.ts";

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

Deno.test("feedStream: each live batch goes to every stream of the channel as one chunk, the same bytes for all", async () => {
  const store = createMemoryStore();
  const sse = createEventStreams({ heartbeatMs: 60_000, bufferBytes: 1_000_000 });
  const plan = { channel: "session:s", sendAfter: 0, readAfter: 0 };
  const readers = [0, 1].map(() =>
    sse.respond((out) => feedStream(store.events, out, plan, { lastRead: 0 })).body!.getReader()
  );
  try {
    for (const reader of readers) assertEquals(text((await reader.read()).value), "retry: 1000\n\n");
    await store.events.append("session:s", "token", { task_id: "t", message: "a" });
    for (const reader of readers) assertEquals(text((await reader.read()).value).split("\n")[0], "id: 1");
    // Three events in one turn: the store hands them out as one batch.
    await Promise.all(
      ["b", "c", "d"].map((m) => store.events.append("session:s", "token", { task_id: "t", message: m })),
    );
    const chunks = await Promise.all(readers.map(async (reader) => (await reader.read()).value!));
    assertEquals(text(chunks[0]).match(/^id: \d+$/gm), ["id: 2", "id: 3", "id: 4"], "the batch's frames in one chunk");
    assert(chunks[0] === chunks[1], "joined once for all the channel's streams, not once per stream");
  } finally {
    for (const reader of readers) await reader.cancel();
    await store.close();
  }
});
