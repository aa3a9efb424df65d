import { assertEquals } from "../../testing/assert.ts";
import { group, lazy } from "./spec.ts";

Deno.test("lazy() imports its module once, however often and however concurrently it is asked", async () => {
  let imports = 0;
  const entry = lazy("a noun", () => (imports++, Promise.resolve({ default: group("a noun", {}) })));
  const [first, second] = await Promise.all([entry.load(), entry.load()]);
  await entry.load();
  assertEquals([imports, first, second], [1, first, first]);
});
