import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { parseServerArgs } from "./args.ts";

Deno.test("parseServerArgs(): nothing starts; --help is help wrapped to the width; anything else names itself and --help", () => {
  assertEquals(parseServerArgs([], 80), { start: true });
  for (const columns of [60, 100]) {
    const args = parseServerArgs(["--help"], columns);
    assert("help" in args);
    assertMatch(args.help, /^USAGE\n {2}npm start/);
    for (const line of args.help.split("\n")) assert([...line].length <= columns, `${columns}: ${line}`);
  }
  const mistake = parseServerArgs(["--port", "9000"], 80);
  assert("mistake" in mistake);
  assertMatch(mistake.mistake, /^Unknown option '--port': .*environment variables.*--help/);
  assert("mistake" in parseServerArgs(["serve"], 80));
});
