import { assert, assertEquals, assertMatch } from "../../testing/assert.ts";
import { reflow, wrapHelp } from "./wrap.ts";
import { examples } from "../../testing/help_text.ts";

const width = (line: string) => [...line].length;
Deno.test("reflow() joins the lines of a paragraph; blank lines, list items and indented blocks stay", () => {
  assertEquals(reflow("one two\nthree.\n\nnext\nparagraph"), "one two three.\n\nnext paragraph");
  assertEquals(
    reflow("Steps:\n1. first\n   goes on\n2. second\nAfter the list\nand more."),
    "Steps:\n1. first goes on\n2. second\nAfter the list and more.",
  );
  assertEquals(reflow("Examples:\n  ctl a\n  ctl b"), "Examples:\n  ctl a\n  ctl b");
});

Deno.test("wrapHelp() flows paragraphs to the width and hangs list items under their text", () => {
  const text = wrapHelp(`${"word ".repeat(30).trim()}\n1. ${"item ".repeat(20).trim()}`, 40);
  const lines = text.split("\n");
  for (const line of lines) assert(width(line) <= 40, line);
  assertEquals(lines[0], "word word word word word word word word");
  const item = lines.findIndex((line) => line.startsWith("1. "));
  assertMatch(lines[item + 1], /^ {3}item/);
});

Deno.test("wrapHelp() breaks examples only between arguments, with a trailing \\ like a shell", () => {
  const example =
    `  ctl api cloud post /subscriptions/156400/databases -d '{"name": "cache", "memoryLimitInGb": 1}' --wait`;
  const text = wrapHelp(`Examples:\n${example}\n  ctl short one`, 60);
  const lines = text.split("\n");
  for (const line of lines) assert(width(line) <= 60 || !line.trimEnd().slice(2).includes(" "), line);
  assert(lines.includes(`      -d '{"name": "cache", "memoryLimitInGb": 1}' --wait`), text);
  assertEquals(examples(text), [example.trim(), "ctl short one"]);
  for (const line of lines.slice(1, -2)) assert(line.endsWith(" \\"), line);
  // A word longer than the width stays whole on its own line.
  const long = wrapHelp(`Examples:\n  ctl x -d '${"y".repeat(80)}' --wait`, 50).split("\n");
  assertEquals(long, ["Examples:", "  ctl x \\", `      -d '${"y".repeat(80)}' \\`, "      --wait"]);
});

Deno.test("wrapHelp() without a terminal width wraps at 80", () => {
  const text = wrapHelp("word ".repeat(40).trim(), undefined);
  assert(text.split("\n").every((line) => width(line) <= 80));
  assert(text.includes("\n"));
});

Deno.test("wrapHelp() continues a flag's description under its column, not under a gap inside it", () => {
  const row = `     [--log-lines]         lines kept per log file when optimizing (1–10000000)  [default = 1000]`;
  assertEquals(
    wrapHelp(row, 85),
    "     [--log-lines]         lines kept per log file when optimizing (1–10000000)\n                           [default = 1000]",
  );
});
