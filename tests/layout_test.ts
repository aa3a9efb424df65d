import { assertEquals } from "./assert.ts";

const ROOT = new URL("..", import.meta.url);

/** ARCHITECTURE §2: what the repository's top level holds (scratch files such as `_b.ts` do not belong). */
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
  "examples",
  "lib",
  "mod.ts",
  "package-lock.json",
  "package.json",
  "server",
  "tests",
  "tools",
];
/** Whether git ignores `name` at the top level: made by `npm ci`, `npm run build`, or the README's examples. */
async function ignored(name: string): Promise<boolean> {
  const check = await new Deno.Command("git", { args: ["-C", ROOT.pathname, "check-ignore", "-q", name] }).output();
  return check.code === 0;
}

Deno.test("the repository's top level holds only what ARCHITECTURE §2 plans", async () => {
  const unplanned = [];
  for await (const { name } of Deno.readDir(ROOT)) {
    if (!PLANNED.includes(name) && !await ignored(name)) unplanned.push(name);
  }
  assertEquals(unplanned.sort(), []);
});
