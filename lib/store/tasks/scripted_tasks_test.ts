import { assertEquals } from "../../../testing/assert.ts";
import { cursorAfter, parseCursor } from "./scripted_tasks.ts";

Deno.test("list cursors: a cluster's clock-read seq names its partition; its first counter's seqs and one Redis's do not", () => {
  const clock = 1_790_000_000_123_456; // µs
  assertEquals(cursorAfter(clock, 7, true), "179000000012345607");
  assertEquals(parseCursor(cursorAfter(clock, 7, true), true), { seq: String(clock), b: 7 });
  assertEquals(parseCursor(cursorAfter(clock, 47, true), true), { seq: String(clock), b: 47 });
  // A task numbered by the first layout's one counter: unique over the partitions, so the seq alone.
  assertEquals(cursorAfter(5_703, 3, true), "5703");
  assertEquals(parseCursor("5703", true), { seq: "5703" });
  assertEquals(cursorAfter(12, 0, false), "12");
  assertEquals(parseCursor("179000000012345607", false), { seq: "179000000012345607" });
});
