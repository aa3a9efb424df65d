import { assert, assertEquals, assertMatch } from "../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../testing/ctl_in_process.ts";
import { type Flag, flag } from "./params.ts";
import { command, type CommandSpec, type Entry, group } from "./spec.ts";
import { examples } from "../../testing/help_text.ts";

const width = (line: string) => [...line].length;

/** The example lines of a help text with their ` \` continuations joined back. */
Deno.test("command help at 80 and 120 columns: paragraphs flow, examples stay whole commands, lines fit", async () => {
  await using ctl = await inProcessCtl();
  for (const columns of [80, 120]) {
    const r = await ctl(["cloud", "database", "create", "--help"], { tty: { stdout: true }, columns });
    assertEquals(r.code, 0);
    const lines = r.stdout.split("\n");
    for (const line of lines) assert(width(line) <= columns, `${columns}: ${line}`);
    // The description is one paragraph: at 120 its first line is longer than the ~100 it was written at.
    const start = lines.findIndex((line) => line.startsWith("Create a database"));
    if (columns === 120) assert(width(lines[start]) > 100, lines[start]);
    assert(!lines[start + 1].startsWith("body has them"), "no ragged pre-wrapped lines");
    assertEquals(examples(r.stdout), [
      "ctl cloud database create --subscription 156400 --name cache --dataset-size-gb 1 --wait",
      "ctl cloud database create --subscription 156400 -d @database.json --name cache-2",
    ]);
  }
  const root = await ctl(["--help"], { tty: { stdout: true }, columns: 80 });
  assert(root.stdout.split("\n").every((line) => width(line) <= 80), root.stdout);
  assert(examples(root.stdout).includes("ctl api enterprise get /v1/bdbs -q '[].name'"), root.stdout);
});

Deno.test("required flags: help shows them without brackets, the parser asks for them (exit 2, nothing sent)", async () => {
  const needy = command({
    summary: "needs a flag",
    flags: {
      target: { ...flag.string("where to go", { placeholder: "place" }), required: true },
      note: flag.string("a note"),
    },
    examples: ["ctl needy --target home"],
    run: ({ flags }) => Promise.resolve({ target: flags.target }),
  });
  await using own = await inProcessCtl({}, group("test", { needy }));
  const help = await own(["needy", "--help"]);
  assertMatch(help.stdout, /^USAGE\n {2}ctl needy --target <place>\n/);
  assertMatch(help.stdout, /\n {6}--target +where to go\n/);
  assertMatch(help.stdout, /\[--note\]/);
  const missing = await own(["needy", "--note", "x"]);
  assertEquals(missing.code, 2);
  assertMatch(missing.stderr, /^Error: --target is required\n {2}tip: Give --target <place>: where to go\n/);
  const json = await own(["needy", "-o", "json"]);
  assertEquals([json.code, JSON.parse(json.stderr).error.code], [2, "usage"]);
  const empty = await own(["needy", "--target"]);
  assertEquals(empty.code, 2);
  assertMatch(empty.stderr, /^Error: --target needs a value\n/);
  assertEquals((await own(["needy", "--target", "home", "-o", "json"])).stdout, '{\n  "target": "home"\n}\n');

  await using ctl = await inProcessCtl();
  const list = await ctl(["cloud", "database", "list", "--help"]);
  assertMatch(list.stdout, /^USAGE\n {2}ctl cloud database list --subscription <id>\n/);
  assertMatch(list.stdout, /\n {6}--subscription +the subscription's id/);
  const unsent = await ctl(["cloud", "database", "list"], { env: EMULATOR_ENV });
  assertEquals([unsent.code, unsent.requests], [2, []]);
  assertMatch(unsent.stderr, /^Error: --subscription is required\n {2}tip: Give --subscription <id>/);
  const get = await ctl(["cloud", "database", "get", "--help"]);
  assertMatch(get.stdout, /^USAGE\n {2}ctl cloud database get --subscription <id> --database-id <id>\n/);
});

Deno.test("every command's help fits 80 columns, its examples intact; required flags have no brackets", async () => {
  const { ROOT } = await import("../commands/mod.ts");
  const { loadAll } = await import("./tree.ts");
  const all: [string[], CommandSpec][] = [];
  const walk = (entry: Entry, path: string[]) => {
    if (entry.kind === "command") all.push([path, entry]);
    else if (entry.kind === "group") {
      for (const [name, child] of Object.entries(entry.commands)) walk(child, [...path, name]);
    }
  };
  walk(await loadAll(ROOT), []);
  assert(all.length > 50, `${all.length} commands`);
  await using ctl = await inProcessCtl();
  for (const [path, spec] of all) {
    const r = await ctl([...path, "--help"], { tty: { stdout: true }, columns: 80 });
    const name = path.join(" ");
    assertEquals(r.code, 0, name);
    for (const line of r.stdout.split("\n")) {
      // Only a word too long for any line may pass the edge, alone after its indent or a flag.
      const words = line.trim().split(/ +/);
      assert(width(line) <= 80 || words.length <= 2 || line.endsWith(" \\"), `${name}: ${line}`);
    }
    if (spec.examples?.length) assertEquals(examples(r.stdout), spec.examples, name);
    for (const [flagName, flag] of Object.entries(spec.flags ?? {}) as [string, Flag<unknown>][]) {
      if (flag.hidden) continue;
      const kebab = flagName.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
      assert(r.stdout.includes(flag.required ? `  --${kebab} ` : `[--${kebab}]`), `${name} --${kebab}`);
    }
  }
});
