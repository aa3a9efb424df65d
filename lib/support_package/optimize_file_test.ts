import { packTar } from "modern-tar";
import { assert, assertEquals, assertMatch, assertRejects } from "../../testing/assert.ts";
import { runtime } from "../runtime/deno.ts";
import { DamagedPackageError } from "./damaged.ts";
import { optimizePackageFile } from "./optimize_file.ts";

Deno.test("optimizePackageFile() writes the smaller package and tells progress, actions and the end", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sp-optimize-" });
  try {
    const log = Array.from({ length: 500 }, (_, i) => `line ${i}\n`).join("");
    const tar = await packTar([{ header: { name: "n/logs/a.log", size: log.length }, body: log }]);
    const gz = await new Response(new Blob([tar]).stream().pipeThrough(new CompressionStream("gzip"))).bytes();
    await Deno.writeFile(`${dir}/p.tar.gz`, gz);
    const seen: string[] = [];
    let last = 0;
    const { result, optimization } = await optimizePackageFile(
      { source: `${dir}/p.tar.gz`, path: `${dir}/s.tar.gz`, logLines: 5 },
      { fs: runtime.fs },
      {
        onProgress: (read, size) => {
          assertEquals(size, gz.length);
          last = read;
        },
        onRead: (read) => seen.push(`read ${read}`),
        onOptimizeAction: (a) => seen.push(`${a.action} ${a.name}`),
      },
    );
    assertEquals(last, gz.length);
    // The end of reading and the optimizer's actions race (the input is read ahead): no order between them.
    assertEquals(seen.sort(), [`read ${gz.length}`, "truncated n/logs/a.log"]);
    assertEquals([result.source_path, result.file_path, result.success], [`${dir}/p.tar.gz`, `${dir}/s.tar.gz`, true]);
    assertEquals(result.file_size, (await Deno.stat(`${dir}/s.tar.gz`)).size);
    assertEquals([optimization.filesTruncated, result.optimization?.size_before], [1, gz.length]);

    await Deno.writeTextFile(`${dir}/bad.tar.gz`, "not gzip");
    const error = await assertRejects(() =>
      optimizePackageFile({ source: `${dir}/bad.tar.gz`, path: `${dir}/bad-s.tar.gz`, logLines: 5 }, {
        fs: runtime.fs,
      })
    );
    assert(error instanceof DamagedPackageError, String(error));
    assertMatch(error.message, new RegExp(`^${dir}/bad\\.tar\\.gz is damaged: it is not a complete gzip stream \\(`));
    assert(
      !(await Array.fromAsync(Deno.readDir(dir))).some((e) => e.name.startsWith("bad-s")),
      "no file from a damaged package",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
