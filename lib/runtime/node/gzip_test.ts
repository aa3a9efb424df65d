import { assertEquals, assertRejects } from "../../../testing/assert.ts";
import { nodeGunzip, nodeGzip } from "./gzip.ts";

const gz = (bytes: Uint8Array<ArrayBuffer>) =>
  new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"))).bytes();

Deno.test("nodeGunzip() restores what was compressed, chunk by chunk, and with nodeGzip round-trips", async () => {
  const data = new Uint8Array(3_000_000).map((_, i) => (i * 7) % 251);
  const out = await new Response(new Blob([await gz(data)]).stream().pipeThrough(nodeGunzip())).bytes();
  assertEquals(out.length, data.length);
  assertEquals(out.every((b, i) => b === data[i]), true);
  const twice = new Blob([data]).stream().pipeThrough(nodeGzip()).pipeThrough(nodeGunzip());
  assertEquals((await new Response(twice).bytes()).length, data.length);
});

Deno.test("nodeGunzip() fails on a cut or corrupt stream", async () => {
  const whole = await gz(new Uint8Array(100_000).map((_, i) => i % 13));
  await assertRejects(() =>
    new Response(new Blob([whole.slice(0, 50)]).stream().pipeThrough(nodeGunzip())).bytes().then((b) => {
      if (b.length < 100_000) throw new Error(`short: ${b.length}`);
    })
  );
  await assertRejects(() =>
    new Response(new Blob([new TextEncoder().encode("not gzip")]).stream().pipeThrough(nodeGunzip())).bytes()
  );
});
