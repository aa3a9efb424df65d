/**
 * The shell blocks of the README and `docs/`, which tests run as a user would. A block is named
 * by the marker before it, `<!-- doc-test: <name> -->`, and a test runs it by that name.
 *
 * @example
 * ```ts
 * const lines = await docCommands("ctl"); // the README's walk-through, one command per entry
 * ```
 *
 * @module
 */

const ROOT = new URL("..", import.meta.url);

/** A fenced `sh` block: where it is and the name of its marker (none: unmarked). */
export interface ShellBlock {
  readonly file: string;
  readonly line: number;
  readonly name?: string;
  readonly text: string;
}

/** The documents a user reads: `README.md` and every `docs/*.md`, relative to the checkout. */
export async function documents(): Promise<string[]> {
  const docs = (await Array.fromAsync(Deno.readDir(new URL("docs/", ROOT))))
    .filter((e) => e.isFile && e.name.endsWith(".md")).map((e) => `docs/${e.name}`).sort();
  return ["README.md", ...docs];
}

/** Every `sh` block of the documents, in order. */
export async function shellBlocks(): Promise<ShellBlock[]> {
  const blocks: ShellBlock[] = [];
  for (const file of await documents()) {
    const text = await Deno.readTextFile(new URL(file, ROOT));
    for (const match of text.matchAll(/(?:<!-- doc-test: ([\w-]+) -->\s*)?```sh\n([\s\S]*?)```/g)) {
      const line = text.slice(0, match.index).split("\n").length;
      blocks.push({ file, line, name: match[1], text: match[2] });
    }
  }
  return blocks;
}

/** The commands of the block named `name`, continuation lines joined, comment lines left out. */
export async function docCommands(name: string): Promise<string[]> {
  const block = (await shellBlocks()).find((b) => b.name === name);
  if (!block) throw new Error(`no shell block is marked <!-- doc-test: ${name} --> in README.md or docs/`);
  return block.text.replace(/\\\n\s*/g, "").split("\n").filter((line) => line.trim() && !line.startsWith("#"));
}
