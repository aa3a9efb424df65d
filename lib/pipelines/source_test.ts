import { assertEquals, assertRejects } from "../../testing/assert.ts";
import { loadRuntime } from "../runtime/mod.ts";
import { PipelineInputError } from "./errors.ts";
import { createPipelineSource, DEFAULT_MAX_FILE_BYTES, type SkippedFile } from "./source.ts";

async function folder() {
  const base = await Deno.makeTempDir({ prefix: "storectl-source-" });
  const root = `${base}/docs`;
  await Deno.mkdir(`${root}/guide`, { recursive: true });
  await Deno.writeTextFile(`${root}/a.md`, "Intro text\n# Alpha title\nBody.");
  await Deno.writeTextFile(`${root}/guide/b.txt`, "Plain text.");
  await Deno.writeTextFile(`${root}/guide/c.json`, JSON.stringify([{ title: "C", content: "See." }, { title: "" }]));
  await Deno.writeTextFile(`${root}/guide/d.csv`, "x,y");
  await Deno.writeTextFile(`${base}/secret.md`, "# Secret");
  await Deno.symlink(`${base}/secret.md`, `${root}/leak.md`);
  await Deno.symlink(base, `${root}/up`);
  return { base, root, [Symbol.asyncDispose]: () => Deno.remove(base, { recursive: true }) };
}

Deno.test("createPipelineSource() reads .md, .txt and .json depth first and skips the rest with a reason", async () => {
  await using dir = await folder();
  const source = createPipelineSource((await loadRuntime()).fs, dir.root);
  const skipped: SkippedFile[] = [];
  const docs = [];
  for await (const doc of source.read(await source.resolve(), (s) => skipped.push(s))) docs.push(doc);
  assertEquals(docs.map((d) => [d.title, d.source]), [
    ["Alpha title", "a.md"],
    ["b", "guide/b.txt"],
    ["C", "guide/c.json#0"],
  ]);
  assertEquals(skipped.map((s) => s.path), ["guide/c.json#1", "guide/d.csv", "leak.md", "up"]);
  const sub = [];
  for await (const doc of source.read(await source.resolve("guide/b.txt"))) sub.push(doc.source);
  assertEquals(sub, ["guide/b.txt"]);
});

Deno.test("createPipelineSource() refuses paths that are absolute, use .., lead out through a symlink or name nothing", async () => {
  await using dir = await folder();
  const source = createPipelineSource((await loadRuntime()).fs, dir.root);
  for (
    const [path, words] of [
      ["/etc", "absolute"],
      ["../secret.md", "'..'"],
      ["guide/../../secret.md", "'..'"],
      ["leak.md", "symlink"],
      ["up/secret.md", "symlink"],
      ["nope", "names nothing"],
    ]
  ) {
    const error = await assertRejects(() => source.resolve(path)) as PipelineInputError;
    assertEquals([error instanceof PipelineInputError, error.errors[0].field], [true, "path"]);
    assertEquals(error.message.includes(words), true, error.message);
  }
});

Deno.test("createPipelineSource() skips dot-files and dot-folders with a warning, as docs/service.md says", async () => {
  await using dir = await folder();
  await Deno.writeTextFile(`${dir.root}/.env.md`, "# Hidden");
  await Deno.mkdir(`${dir.root}/guide/.cache`);
  await Deno.writeTextFile(`${dir.root}/guide/.cache/x.md`, "# Cached");
  const source = createPipelineSource((await loadRuntime()).fs, dir.root);
  const skipped: SkippedFile[] = [];
  const docs = [];
  for await (const doc of source.read(await source.resolve(), (s) => skipped.push(s))) docs.push(doc.source);
  assertEquals(docs, ["a.md", "guide/b.txt", "guide/c.json#0"]);
  assertEquals(skipped.filter((s) => s.path.split("/").pop()!.startsWith(".")), [
    { path: ".env.md", reason: "a dot-file (hidden)" },
    { path: "guide/.cache", reason: "a dot-folder (hidden)" },
  ]);
});

Deno.test("createPipelineSource() skips a file over maxFileBytes with a reason naming its size, the limit and the fix", async () => {
  await using dir = await folder();
  await Deno.writeTextFile(`${dir.root}/guide/big.md`, `# Big\n${"Many words here. ".repeat(100)}`);
  const source = createPipelineSource((await loadRuntime()).fs, dir.root, { maxFileBytes: 1_000 });
  const skipped: SkippedFile[] = [];
  const docs = [];
  for await (const doc of source.read(await source.resolve("guide"), (s) => skipped.push(s))) docs.push(doc.source);
  assertEquals(docs, ["guide/b.txt", "guide/c.json#0"]);
  assertEquals(skipped.find((s) => s.path === "guide/big.md"), {
    path: "guide/big.md",
    reason: "1706 bytes, over PIPELINE_MAX_FILE_BYTES (1000); split it into smaller files or raise the limit",
  });
  assertEquals(DEFAULT_MAX_FILE_BYTES, 10_000_000);
});
