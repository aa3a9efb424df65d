import { assert, assertEquals } from "../../testing/assert.ts";
import { GUNZIP_PIECE_BYTES, webGunzip } from "./web_gunzip.ts";

Deno.test("webGunzip() hands out chunks of a few MiB at most, however well the input compresses", async () => {
  const text = new Uint8Array(64 * 1024 * 1024).fill(10); // empty lines: about 1000:1
  const gz = await new Response(new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"))).bytes();
  assert(gz.length < text.length / 900, `${gz.length} bytes compressed`);
  let largest = 0;
  let total = 0;
  // The whole file as one chunk: DecompressionStream alone hands out 64 MiB at once.
  for await (const chunk of new Blob([gz]).stream().pipeThrough(webGunzip())) {
    largest = Math.max(largest, chunk.length);
    total += chunk.length;
    assertEquals(chunk.indexOf(0), -1);
  }
  assertEquals(total, text.length);
  assert(largest <= GUNZIP_PIECE_BYTES * 1032, `a chunk of ${largest} bytes`);
});
