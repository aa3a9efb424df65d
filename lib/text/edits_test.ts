import { assertEquals } from "../../tests/assert.ts";
import { closest, withinEdits } from "./edits.ts";

Deno.test("withinEdits() counts insertions, deletions and substitutions", () => {
  assertEquals([withinEdits("kitten", "sitting", 3), withinEdits("kitten", "sitting", 2)], [true, false]);
  assertEquals([withinEdits("", "ab", 2), withinEdits("abc", "abc", 0)], [true, true]);
});

Deno.test("closest() picks the nearest candidate within the limit", () => {
  assertEquals(closest("to_strin", ["to_number", "to_string", "to_array"]), "to_string");
  assertEquals(closest("lenght", ["length", "keys"]), "length");
  assertEquals(closest("nothing", ["length", "keys"]), undefined);
});
