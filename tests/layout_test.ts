import { assertEquals } from "../testing/assert.ts";

const ROOT = new URL("..", import.meta.url);

/** What the repository's top level holds (docs/architecture.md, "Rooms"; scratch files such as `_b.ts` do not belong). */
const PLANNED = [
  ".ci",
  ".git",
  ".gitignore",
  "README.md",
  "bench",
  "cli",
  "deno.json",
  "deno.lock",
  "docs",
  "emulator",
  "examples",
  "lib",
  "mod.ts",
  "package-lock.json",
  "package.json",
  "server",
  "testing",
  "tests",
  "tools",
];
/** Whether git ignores `name` at the top level: made by `npm ci`, `npm run build`, or the documents' examples. */
async function ignored(name: string): Promise<boolean> {
  const check = await new Deno.Command("git", { args: ["-C", ROOT.pathname, "check-ignore", "-q", name] }).output();
  return check.code === 0;
}

Deno.test("the repository's top level holds only the planned rooms", async () => {
  const unplanned = [];
  for await (const { name } of Deno.readDir(ROOT)) {
    if (!PLANNED.includes(name) && !await ignored(name)) unplanned.push(name);
  }
  assertEquals(unplanned.sort(), []);
});
