import { assertEquals } from "../testing/assert.ts";
import { cliReference, handWritten } from "./cli_reference.ts";

Deno.test("docs/cli.md is the commands' own help: regenerate it with deno task docs", async () => {
  const committed = await Deno.readTextFile(new URL("../docs/cli.md", import.meta.url));
  assertEquals(committed, await cliReference(handWritten(committed)), "docs/cli.md is stale: run deno task docs");
});
