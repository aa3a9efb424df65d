import { assert, assertEquals } from "../../testing/assert.ts";
import { closest, nearWords, withinEdits } from "./edits.ts";

Deno.test("withinEdits() counts insertions, deletions and substitutions", () => {
  assertEquals([withinEdits("kitten", "sitting", 3), withinEdits("kitten", "sitting", 2)], [true, false]);
  assertEquals([withinEdits("", "ab", 2), withinEdits("abc", "abc", 0)], [true, true]);
});

Deno.test("closest() picks the nearest candidate within the limit", () => {
  assertEquals(closest("to_strin", ["to_number", "to_string", "to_array"]), "to_string");
  assertEquals(closest("lenght", ["length", "keys"]), "length");
  assertEquals(closest("nothing", ["length", "keys"]), undefined);
});

Deno.test("nearWords() finds exactly the words within the limit, with their edits, as a full comparison does; prefix and steps limit it", () => {
  let seed = 11;
  const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const letters = "abcde";
  const randomWord = (length: number) =>
    Array.from({ length }, () => letters[Math.floor(rand() * letters.length)]).join("");
  const sorted = [...new Set(Array.from({ length: 3_000 }, () => randomWord(1 + Math.floor(rand() * 9))))].sort();
  let partial = 0;
  const distance = (a: string, b: string) => [0, 1, 2, 3].find((max) => withinEdits(a, b, max)) ?? 4;
  for (let q = 0; q < 60; q++) {
    const word = randomWord(Math.floor(rand() * 11));
    for (const max of [0, 1, 2, 3]) {
      const found: [string, number][] = [];
      nearWords(sorted, word, max, (i, edits) => found.push([sorted[i], edits]));
      const expected = sorted.filter((w) => distance(word, w) <= max).map((
        w,
      ): [string, number] => [w, distance(word, w)]);
      assertEquals(found, expected, `${word} within ${max}`);
      const sameStart: [string, number][] = [];
      nearWords(sorted, word, max, (i, edits) => sameStart.push([sorted[i], edits]), { prefix: 2 });
      assertEquals(
        sameStart,
        expected.filter(([w]) => w.startsWith(word.slice(0, 2))),
        `${word} within ${max}, prefix 2`,
      );
      const some: [string, number][] = [];
      const steps = nearWords(sorted, word, max, (i, edits) => some.push([sorted[i], edits]), { steps: 40 });
      assert(steps <= 40, `${steps} steps`);
      assertEquals(some, found.slice(0, some.length), `${word} within ${max}, 40 steps`);
      if (some.length < found.length) partial++;
    }
  }
  assert(partial > 0, "40 steps are too many to stop any walk");
  const seen: [number, number][] = [];
  nearWords(["lemon", "length", "lengths"], "lenght", 2, (i, edits) => seen.push([i, edits]));
  assertEquals(seen, [[1, 2], [2, 2]]);
});
