import { assert } from "./assert.ts";

const ROOT = new URL("..", import.meta.url);

Deno.test("README: .ci/run runs exactly the README's test line", async () => {
  const ci = await Deno.readTextFile(new URL(".ci/run", ROOT));
  const readme = await Deno.readTextFile(new URL("README.md", ROOT));
  const testLine = ci.trim().split("\n").at(-1)!;
  assert(readme.includes(`\n${testLine}\n`), `README.md must show the CI test line '${testLine}' on its own line`);
});
