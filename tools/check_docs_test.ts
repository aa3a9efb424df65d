import { assertEquals, assertMatch } from "../tests/assert.ts";

const TOOL = new URL("./check_docs.ts", import.meta.url).pathname;

Deno.test("check_docs.ts fails on a wrong doc example and passes one that only leaves names unused", async () => {
  const dir = await Deno.makeTempDir({ prefix: "doc-check-" });
  try {
    const run = async (example: string) => {
      await Deno.writeTextFile(
        `${dir}/m.ts`,
        `/**\n * Doubles.\n *\n * @example\n * \`\`\`ts\n${
          example.split("\n").map((l) => ` * ${l}`).join("\n")
        }\n * \`\`\`\n */\nexport function double(n: number): number {\n  return n * 2;\n}\n`,
      );
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", TOOL, dir],
        stdout: "piped",
        stderr: "piped",
      })
        .output();
      return { code: out.code, text: new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr) };
    };
    const good = await run('import { double } from "./m.ts";\nconst four = double(2);');
    assertEquals(good.code, 0, good.text);
    const bad = await run('import { double } from "./m.ts";\ndouble("two");');
    assertEquals(bad.code, 1);
    assertMatch(bad.text, /TS2345/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
