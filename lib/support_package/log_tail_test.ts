import { assert, assertEquals } from "../../testing/assert.ts";
import { countNewlines, LogTail, TAIL_PIECE_BYTES } from "./log_tail.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The tail as a plain implementation computes it: the reference the streaming one must match. */
function reference(text: string, n: number): { text: string; linesCut: number } {
  if (text === "") return { text, linesCut: 0 };
  const parts = text.split("\n");
  const endsWithNewline = text.endsWith("\n");
  const lines = endsWithNewline ? parts.slice(0, -1).map((l) => l + "\n") : [
    ...parts.slice(0, -1).map((l) => l + "\n"),
    parts[parts.length - 1],
  ];
  if (lines.length <= n) return { text, linesCut: 0 };
  return { text: lines.slice(-n).join(""), linesCut: lines.length - n };
}

/** Feeds `text` to a tail in chunks of the given sizes (cycled). */
function tailOf(text: string, n: number, sizes: number[], maxBytes?: number) {
  const tail = new LogTail(n, maxBytes);
  const bytes = encoder.encode(text);
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length];
    tail.push(bytes.subarray(at, at + size));
    at += size;
  }
  const result = tail.finish();
  return { text: decoder.decode(result.bytes), linesCut: result.linesCut, totalLines: result.totalLines };
}

Deno.test("LogTail keeps the last N lines whatever the chunk boundaries", () => {
  let seed = 7;
  const random = (max: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % max;
  for (let round = 0; round < 300; round++) {
    const lineCount = random(40);
    let text = "";
    for (let i = 0; i < lineCount; i++) text += "x".repeat(random(12)) + (i < lineCount - 1 || random(2) ? "\n" : "");
    if (random(5) === 0) text += "\n\n";
    const n = 1 + random(10);
    const sizes = [1 + random(9), 1 + random(30), 1 + random(3)];
    const got = tailOf(text, n, sizes);
    const want = reference(text, n);
    assertEquals({ text: got.text, linesCut: got.linesCut }, want, JSON.stringify({ text, n, sizes }));
  }
});

Deno.test("LogTail keeps a short text whole and counts a last line without a newline", () => {
  assertEquals(tailOf("a\nb\n", 2, [1]), { text: "a\nb\n", linesCut: 0, totalLines: 2 });
  assertEquals(tailOf("a\nb\nc", 2, [100]), { text: "b\nc", linesCut: 1, totalLines: 3 });
  assertEquals(tailOf("", 2, [1]), { text: "", linesCut: 0, totalLines: 0 });
  assertEquals(tailOf("\n\n\n", 1, [1]), { text: "\n", linesCut: 2, totalLines: 3 });
});

Deno.test("LogTail holds at most maxBytes, starting at a whole line", () => {
  const line = (i: number) => `${String(i).padStart(3, "0")} ${"y".repeat(95)}\n`; // 100 bytes
  const text = Array.from({ length: 100 }, (_, i) => line(i)).join("");
  // 50 lines asked, 1000 bytes allowed: the tail is the last whole lines within the cap.
  const got = tailOf(text, 50, [64], 1000);
  assertEquals(got.text.startsWith(line(got.totalLines - got.text.split("\n").length + 1)), true);
  assertEquals(got.text.length <= 1000 + 64 && got.text.length >= 900, true, `${got.text.length}`);
  assertEquals(got.linesCut, 100 - got.text.length / 100);
});

Deno.test("LogTail keeps what the tail needs, not the chunks it came in, whatever their size", () => {
  const MiB = 1024 * 1024;
  const tail = new LogTail(1000);
  // Ten 16 MiB chunks of short lines, each its own buffer, as Deno's gunzip hands them out.
  for (let i = 0; i < 10; i++) {
    tail.push(new Uint8Array(16 * MiB).fill(10));
    assert(tail.retainedBytes <= TAIL_PIECE_BYTES, `${tail.retainedBytes} bytes held after chunk ${i}`);
  }
  // A few bytes at the end of a large buffer keep only themselves (a copy), not the buffer.
  const buffer = new Uint8Array(8 * MiB).fill(10);
  tail.push(buffer.subarray(buffer.length - 100));
  assertEquals(tail.retainedBytes, TAIL_PIECE_BYTES + 100);
  const { bytes, totalLines, linesCut } = tail.finish();
  assertEquals([bytes.length, totalLines, linesCut], [1000, 160 * MiB + 100, 160 * MiB + 100 - 1000]);
});

Deno.test("countNewlines() counts at every offset and alignment", () => {
  const bytes = encoder.encode("a\n\n\nbcd\nefgh\n\n\n\n\nxyz\n");
  for (let start = 0; start < bytes.length; start++) {
    for (let end = start; end <= bytes.length; end++) {
      const part = bytes.subarray(start, end);
      assertEquals(countNewlines(part), part.filter((b) => b === 10).length, `${start}..${end}`);
    }
  }
});
