import { assertEquals } from "../../testing/assert.ts";
import { counted } from "./words.ts";

Deno.test("counted: the singular for one, the plural otherwise", () => {
  assertEquals(
    [counted(0, "sub-task"), counted(1, "sub-task"), counted(2, "sub-task"), counted(1, "best match", "best matches")],
    ["0 sub-tasks", "1 sub-task", "2 sub-tasks", "1 best match"],
  );
  assertEquals(counted(5, "best match", "best matches"), "5 best matches");
});
