import { assertEquals, assertMatch } from "../testing/assert.ts";
import { parseEmulatorArgs } from "./options.ts";
import { ALL_QUIRKS } from "./quirks.ts";

async function parse(argv: string[]) {
  let stderr = "";
  const parsed = await parseEmulatorArgs(argv, { stdout: () => {}, stderr: (text) => void (stderr += text) });
  return { parsed, stderr };
}

Deno.test("parseEmulatorArgs() turns every quirk on with --real-api, some with --quirks, none by default", async () => {
  const quirks = async (argv: string[]) => {
    const { parsed } = await parse(argv);
    return "quirks" in parsed ? [...parsed.quirks].sort() : parsed;
  };
  assertEquals(await quirks([]), []);
  assertEquals(await quirks(["--real-api"]), [...ALL_QUIRKS].sort());
  assertEquals(await quirks(["--quirks", "task-404,html-401"]), ["html-401", "task-404"]);
});

Deno.test("parseEmulatorArgs() refuses an unknown quirk, naming the known ones", async () => {
  const { parsed, stderr } = await parse(["--quirks", "task-404,slow"]);
  assertEquals(parsed, { exitCode: 2 });
  assertMatch(stderr, /unknown quirk 'slow'; known: networking-tasks/);
});
