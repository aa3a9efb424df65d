import { packTar, type TarEntry, unpackTar } from "modern-tar";
import { assert, assertEquals } from "../../testing/assert.ts";
import { guardTarMetadata, MAX_META_BYTES, OVERSIZED_META_KEY } from "./tar_meta_guard.ts";

const encoder = new TextEncoder();

function file(name: string, body: string): TarEntry {
  return { header: { name, size: encoder.encode(body).length }, body };
}

/** The entries' blocks without the end-of-archive blocks, to put archives together. */
async function blocks(entries: TarEntry[]): Promise<Uint8Array<ArrayBuffer>> {
  const tar = await packTar(entries);
  return tar.slice(0, -1024);
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}

/** Rewrites the size field of the header at `offset`, and its checksum. */
function setSizeField(tar: Uint8Array, offset: number, size: number): void {
  const header = tar.subarray(offset, offset + 512);
  header.set(encoder.encode(`${size.toString(8).padStart(11, "0")}\0`), 124);
  header.fill(0x20, 148, 156);
  const sum = header.reduce((n, b) => n + b, 0);
  header.set(encoder.encode(`${sum.toString(8).padStart(6, "0")}\0 `), 148);
}

/** Runs `tar` through the guard in chunks of pseudo-random sizes (from `seed`). */
async function guarded(tar: Uint8Array<ArrayBuffer>, seed: number): Promise<Uint8Array<ArrayBuffer>> {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31);
  const input = new ReadableStream<Uint8Array<ArrayBuffer>>({
    start(controller) {
      for (let at = 0; at < tar.length;) {
        const size = next() % 4 === 0 ? 1 + next() % 100_000 : 1 + next() % 1500;
        controller.enqueue(tar.slice(at, at + size));
        at += size;
      }
      controller.close();
    },
  });
  return await new Response(input.pipeThrough(guardTarMetadata())).bytes();
}

Deno.test("guardTarMetadata() passes an archive through byte for byte, however it is cut into chunks", async () => {
  const tar = await packTar([
    { header: { name: "n1/", type: "directory", size: 0 } },
    file("n1/empty", ""),
    file("n1/block", "b".repeat(512)),
    file("n1/odd", "o".repeat(1000)),
    file(`deep/${"d".repeat(200)}/${"f".repeat(300)}.log`, "pax path\n"),
    { header: { name: "././@LongLink", type: "gnu-long-name", size: 301 }, body: `${"g".repeat(300)}\0` },
    file("g".repeat(99), "gnu long name"),
    { header: { name: "n1/sym", type: "symlink", linkname: "x".repeat(300), size: 0 } },
    { header: { name: "n1/hard", type: "link", linkname: "n1/odd", size: 0 } },
    file("n1/big", "z".repeat(200_000)),
  ]);
  for (const seed of [1, 2, 3, 4, 5]) assertEquals(await guarded(tar, seed), tar, `seed ${seed}`);
});

Deno.test("guardTarMetadata() puts a small PAX header in place of metadata over 64 KiB", async () => {
  const hugeName = `n/${"p".repeat(100_000)}.log`;
  const hugeGnu = `${"q".repeat(MAX_META_BYTES)}.log`;
  const tar = concat(
    await blocks([file("a.txt", "a")]),
    await blocks([file(hugeName, "b")]),
    await blocks([
      { header: { name: "././@LongLink", type: "gnu-long-name", size: hugeGnu.length + 1 }, body: `${hugeGnu}\0` },
      file("c-short", "c"),
    ]),
    await packTar([file("d.txt", "d")]),
  );
  for (const seed of [1, 2, 3]) {
    const out = await guarded(tar, seed);
    assert(out.length < 10_000, `${out.length} bytes`);
    const entries = await unpackTar(out, { strict: true });
    assertEquals(
      entries.map((e) => [e.header.name, e.header.pax?.[OVERSIZED_META_KEY], new TextDecoder().decode(e.data)]),
      [
        ["a.txt", undefined, "a"],
        [hugeName.slice(0, 100), "100019", "b"], // the PAX header: "100019 path=n/ppp….log\n"
        ["c-short", String(hugeGnu.length + 1), "c"],
        ["d.txt", undefined, "d"],
      ],
      `seed ${seed}`,
    );
  }
});

Deno.test("guardTarMetadata() follows PAX size records and bodyless entries as the decoder does", async () => {
  // A file whose PAX size (700) is not its header's (0), a symbolic link whose header claims 900
  // bytes it does not have, a global size of 3 for every later entry: then an oversized name.
  const paxSized = await blocks([{
    header: { name: "sized", size: 700, pax: { size: "700" } },
    body: "s".repeat(700),
  }]);
  setSizeField(paxSized, paxSized.length - 512 - 1024, 0); // the file's header, after the PAX one
  const link = await blocks([{ header: { name: "sym", type: "symlink", linkname: "t", size: 0 } }]);
  setSizeField(link, 0, 900);
  const globalSize = await blocks([
    { header: { name: "pax_global_header", type: "pax-global-header", size: 10 }, body: "10 size=3\n" },
  ]);
  const three = await blocks([file("three", "333")]);
  setSizeField(three, 0, 0);
  // A PAX size is forgotten when another metadata entry follows it (modern-tar's reading).
  const forgotten = await blocks([{ header: { name: "forgotten", size: 5, pax: { size: "5" } }, body: "12345" }]);
  setSizeField(forgotten, 1024, 0);
  const longName = await blocks([
    { header: { name: "././@LongLink", type: "gnu-long-name", size: 15 }, body: "forgotten-long\0" },
  ]);
  const tar = concat(
    paxSized,
    forgotten.subarray(0, 1024),
    longName,
    forgotten.subarray(1024, 1536),
    await blocks([file(`o/${"p".repeat(100_000)}`, "ab")]),
    link,
    globalSize,
    three,
    await blocks([file(`n/${"p".repeat(100_000)}`, "abc")]),
    await packTar([file("last", "xyz")]),
  );
  for (const seed of [1, 2, 3]) {
    const entries = await unpackTar(await guarded(tar, seed), { strict: true });
    assertEquals(
      entries.map((e) => [e.header.name, e.header.pax?.[OVERSIZED_META_KEY], e.data?.length]),
      [["sized", undefined, 700], ["forgotten-long", undefined, 0], ["o/" + "p".repeat(98), "100015", 2], [
        "sym",
        undefined,
        undefined,
      ], [
        "three",
        undefined,
        3,
      ], [
        "n/" + "p".repeat(98),
        "100015",
        3,
      ], ["last", undefined, 3]],
      `seed ${seed}`,
    );
  }
});

Deno.test("guardTarMetadata() passes what follows a damaged header as it is, for the decoder to report", async () => {
  const tar = await packTar([file("a", "a"), file(`n/${"p".repeat(100_000)}`, "b")]);
  tar[1024 + 148] ^= 1; // the checksum of the PAX header of the second entry
  assertEquals(await guarded(tar, 1), tar);
});
