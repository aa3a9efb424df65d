import { assert, assertEquals } from "../../testing/assert.ts";
import { chunkText } from "./chunk.ts";

const words = (n: number, word = "word") => Array.from({ length: n }, (_, i) => `${word}${i}`).join(" ");

Deno.test("chunkText() keeps a short text whole, with whitespace runs made one space", () => {
  assertEquals(chunkText("  One   two.\tThree\nfour.  ", { chunkSize: 100 }), ["One two. Three four."]);
  assertEquals(chunkText("", { chunkSize: 100 }), []);
});

Deno.test("chunkText() ends chunks at sentence ends when one lies in the chunk's second half", () => {
  const a = "Alpha beta gamma delta epsilon zeta eta theta.";
  const b = "Iota kappa lambda mu nu xi omicron pi rho sigma.";
  const chunks = chunkText(`${a} ${b} ${a}`, { chunkSize: a.length + 20 });
  assertEquals(chunks[0], a);
  assertEquals(chunks[1], b);
});

Deno.test("chunkText() falls back to word boundaries, never splitting a word, and respects chunk_size", () => {
  const text = words(500);
  const chunks = chunkText(text, { chunkSize: 100 });
  for (const chunk of chunks) {
    assert(chunk.length <= 100, `${chunk.length} > 100`);
    assert(/^word\d+( word\d+)*$/.test(chunk), chunk);
  }
  assertEquals(chunks.join(" "), text);
});

Deno.test("chunkText() treats a blank line as a sentence end", () => {
  const para = words(12, "p");
  const chunks = chunkText(`${para}\n\n${words(12, "q")}`, { chunkSize: para.length + 30 });
  assertEquals(chunks[0], para);
});

Deno.test("chunkText() keeps Markdown headings, list items and quotes on lines of their own", () => {
  const text =
    "# Beacons\nA beacon burns\non the headland.\n## Rules\n- Light it at dusk\n* Keep it dry\n> An old saying\n2. Last step";
  assertEquals(chunkText(text, { chunkSize: 1000 }), [
    "# Beacons\nA beacon burns on the headland.\n## Rules\n- Light it at dusk\n* Keep it dry\n> An old saying\n2. Last step",
  ]);
  // Only at a line's start: a '#' or '-' inside a line is text.
  assertEquals(chunkText("Issue #12 -\nsee below - fine", { chunkSize: 100 }), ["Issue #12 - see below - fine"]);
});

Deno.test("chunkText() cuts a single word longer than chunk_size inside it", () => {
  assertEquals(chunkText("x".repeat(250), { chunkSize: 100 }), ["x".repeat(100), "x".repeat(100), "x".repeat(50)]);
});

Deno.test("chunkText() with overlap starts each chunk with whole words of the previous one's end", () => {
  const text = words(300);
  const chunks = chunkText(text, { chunkSize: 200, overlap: 40 });
  for (let i = 1; i < chunks.length; i++) {
    const first = chunks[i].split(" ")[0];
    assert(chunks[i - 1].split(" ").slice(-8).includes(first), `chunk ${i} starts with ${first}`);
    assert(chunks[i].length <= 200);
  }
  assert(chunks.length > chunkText(text, { chunkSize: 200 }).length);
  assertEquals(chunks.at(-1)!.split(" ").at(-1), "word299");
});
