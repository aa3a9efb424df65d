/**
 * The documents hold together: the README stays a short front door, every shell block a user
 * would run is run by a test, every relative link and anchor leads somewhere, and no table
 * repeats a row.
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { documents, shellBlocks } from "../testing/doc_blocks.ts";

const ROOT = new URL("..", import.meta.url);
const read = (file: string) => Deno.readTextFile(new URL(file, ROOT));

Deno.test("docs: the README is read in five minutes: at most 300 lines", async () => {
  const lines = (await read("README.md")).split("\n").length;
  assert(lines <= 300, `README.md has ${lines} lines; move detail to docs/`);
});

Deno.test("docs: every shell block is marked <!-- doc-test: name --> and a test runs it by that name", async () => {
  const tests = await Promise.all(
    (await Array.fromAsync(Deno.readDir(new URL("tests/", ROOT)))).map((e) => read(`tests/${e.name}`)),
  );
  const blocks = await shellBlocks();
  assert(blocks.length >= 10, `only ${blocks.length} shell blocks found`);
  const names = new Set<string>();
  for (const block of blocks) {
    const where = `${block.file}:${block.line}`;
    assert(
      block.name,
      `${where}: a shell block without a <!-- doc-test: name --> marker; mark it and run it in a test`,
    );
    assert(!names.has(block.name), `${where}: a second block named '${block.name}'`);
    names.add(block.name);
    assert(
      tests.some((text) => text.includes(`docCommands("${block.name}")`)),
      `${where}: no test under tests/ runs docCommands("${block.name}")`,
    );
  }
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
const slug = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");

/** The anchors of a Markdown file's headings (outside code blocks). */
function anchors(text: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (heading) out.add(slug(heading[1]));
  }
  return out;
}

Deno.test("docs: every relative link leads to a file, and every #anchor to a heading of it", async () => {
  const broken: string[] = [];
  for (const file of await documents()) {
    const text = await read(file);
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
      const [path, anchor] = target.split("#");
      const resolved = path ? new URL(path, new URL(file, ROOT)) : new URL(file, ROOT);
      const linked = await Deno.readTextFile(resolved).catch(() => undefined);
      if (linked === undefined) broken.push(`${file}: ${target} (no such file)`);
      else if (anchor && resolved.pathname.endsWith(".md") && !anchors(linked).has(anchor)) {
        broken.push(`${file}: ${target} (no such heading)`);
      }
    }
  }
  assertEquals(broken, []);
});

Deno.test("docs: no table repeats a row", async () => {
  const repeated: string[] = [];
  for (const file of await documents()) {
    let rows = new Set<string>();
    for (const [i, line] of (await read(file)).split("\n").entries()) {
      if (!line.startsWith("|")) {
        rows = new Set();
        continue;
      }
      const row = line.replace(/\s+/g, " ");
      if (rows.has(row) && !/^\|[\s|:-]+\|$/.test(line)) repeated.push(`${file}:${i + 1}: ${line.slice(0, 80)}`);
      rows.add(row);
    }
  }
  assertEquals(repeated, []);
});
