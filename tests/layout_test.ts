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
  "lib",
  "mod.ts",
  "package-lock.json",
  "package.json",
  "server",
  "tests",
  "tools",
];
/** Made by `npm ci` and `npm run build`, and ignored by git. */
const GENERATED = ["node_modules", "dist"];

Deno.test("the repository's top level holds only what ARCHITECTURE §2 plans", async () => {
  const entries = [];
  for await (const entry of Deno.readDir(ROOT)) if (!GENERATED.includes(entry.name)) entries.push(entry.name);
  assertEquals(entries.filter((name) => !PLANNED.includes(name)).sort(), []);
});
