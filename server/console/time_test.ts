// Beside the browser code it serves: plain TypeScript, no DOM, so server tests import it too.
import { assertEquals } from "../../testing/assert.ts";
import { ago } from "./time.ts";

Deno.test("ago: seconds from the first, then minutes, hours and days", () => {
  const now = Date.parse("2026-01-02T00:00:00.000Z");
  const at = (ms: number) => ago(new Date(now - ms).toISOString(), now);
  assertEquals(
    [at(200), at(1_000), at(3_000), at(59_000), at(60_000), at(3_599_000), at(3_600_000), at(86_400_000), at(-5_000)],
    ["just now", "1 s ago", "3 s ago", "59 s ago", "1 min ago", "59 min ago", "1 h ago", "1 d ago", "just now"],
  );
});
