import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { createEmulator, DEFAULT_OPTIONS } from "./mod.ts";

Deno.test("createEmulator() logs an unexpected error as one line, with the stack only in debug", async () => {
  for (const debug of [false, true]) {
    const lines: string[] = [];
    const { cloud } = createEmulator({ ...DEFAULT_OPTIONS, debug, log: (line) => lines.push(line) });
    cloud.get("/boom", () => {
      throw new Error("kaboom");
    });
    const res = await cloud.request("/boom");
    assertEquals([res.status, (await res.json()).message], [500, "Internal emulator error; see the emulator's log"]);
    assertEquals(lines.length, 1);
    assertMatch(lines[0], /^emulator: GET \/boom failed: kaboom/);
    assertEquals(lines[0].includes("\n"), debug, lines[0]);
    if (debug) assert(lines[0].includes("mod_test.ts"), "the stack names where it was thrown");
  }
});
