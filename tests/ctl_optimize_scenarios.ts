/**
 * End-to-end scenarios of `ctl enterprise support-package optimize <file>` on crafted packages:
 * entries that would extract outside their folder, names too long to keep, damaged packages and
 * a 1 GiB log, added to `SCENARIOS` so that `ctl_deno_test.ts` and `ctl_node_test.ts` run them
 * on Deno and on the Node bundle. The outputs are extracted with Python's `tarfile` and GNU tar;
 * memory is the ctl process's peak RSS (`peak_rss.ts`).
 *
 * @module
 */
import { createTarPacker, packTar, type TarEntry, type TarHeader, unpackTar } from "modern-tar";
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { SCENARIOS, type World } from "./ctl_scenarios.ts";
import { runMeasured } from "../testing/peak_rss.ts";
import { missingTools, requireTool, userEnv } from "../testing/tools.ts";

type Result = { code: number; stdout: string; stderr: string };

/** docs/ctl.md's promise for optimizing, whatever the package. */
const MAX_RSS_BYTES = 200 * 1000 * 1000;

function expectCode(r: Result, code: number): Result {
  assertEquals(r.code, code, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

function gzip(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  return new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"))).bytes();
}

function file(name: string, body: string, extra: Partial<TarHeader> = {}): TarEntry {
  return { header: { name, size: new TextEncoder().encode(body).length, ...extra }, body };
}

/** A fresh folder for one scenario inside the world's directory. */
async function folder(w: World, name: string): Promise<string> {
  const path = `${w.dir}/${name}`;
  await Deno.remove(path, { recursive: true }).catch(() => {});
  await Deno.mkdir(path, { recursive: true });
  return path;
}

/** Every path under `dir`, relative to it, sorted. */
async function tree(dir: string, prefix = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(`${dir}/${prefix}`)) {
    const path = `${prefix}${entry.name}`;
    found.push(path);
    if (entry.isDirectory) found.push(...await tree(dir, `${path}/`));
  }
  return found.sort();
}

/** Runs a system tool to its end. */
async function runTool(name: string, args: string[]): Promise<Result> {
  const out = await new Deno.Command(requireTool(name), { args }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** Extracts `archive` into `into` with Python's `tarfile` as it was before 3.14 (no filter). */
function pythonExtract(archive: string, into: string): Promise<Result> {
  const script = `import sys, tarfile
trusting = {"filter": "fully_trusted"} if hasattr(tarfile, "fully_trusted_filter") else {}
with tarfile.open(sys.argv[1]) as archive:
    archive.extractall(sys.argv[2], **trusting)`;
  return runTool("python3", ["-c", script, archive, into]);
}

function gnuExtract(archive: string, into: string): Promise<Result> {
  return runTool("tar", ["-xzf", archive, "-C", into]);
}

/** The world's ctl with its job state in the test directory, never in the user's home. */
function optimize(w: World, args: string[]): Promise<Result> {
  return w.ctl(["enterprise", "support-package", "optimize", ...args], { env: { XDG_STATE_HOME: `${w.dir}/state` } });
}

/** Runs `ctl enterprise support-package optimize …` as the world does, measuring its peak RSS. */
function optimizeMeasured(w: World, args: string[]) {
  const env = { ...userEnv(), STORE_CONFIG_FILE: `${w.dir}/config.toml`, XDG_STATE_HOME: `${w.dir}/state` };
  return runMeasured([...w.command, "enterprise", "support-package", "optimize", ...args], { env, cwd: w.dir });
}

/** Writes a tar.gz of `entries` as a stream: `entries` yields each header and its body chunks. */
async function writePackage(
  path: string,
  entries: () => AsyncGenerator<{ header: TarHeader; chunks: Iterable<Uint8Array> }>,
): Promise<number> {
  const { readable, controller } = createTarPacker();
  const packing = (async () => {
    for await (const { header, chunks } of entries()) {
      const writer = controller.add(header).getWriter();
      for (const chunk of chunks) await writer.write(chunk);
      await writer.close();
    }
    controller.finalize();
  })();
  const out = await Deno.open(path, { write: true, create: true, truncate: true });
  await Promise.all([readable.pipeThrough(new CompressionStream("gzip")).pipeTo(out.writable), packing]);
  return (await Deno.stat(path)).size;
}

Object.assign(SCENARIOS, {
  async "support-package optimize: nothing of its output extracts outside the folder (Python tarfile, GNU tar)"(
    w: World,
  ) {
    if (missingTools("python3", "tar")) return;
    const dir = await folder(w, "escape");
    await Deno.mkdir(`${dir}/abs`);
    await Deno.mkdir(`${dir}/rel`);
    const input = await gzip(
      await packTar([
        { header: { name: "node_1", type: "symlink", linkname: `${dir}/abs`, size: 0 } },
        file("node_1/file", "through an absolute link\n"),
        { header: { name: "up", type: "symlink", linkname: "../rel", size: 0 } },
        file("up/file", "through a relative link\n"),
        file("sparse", "renamed by a sparse record\n", { pax: { "GNU.sparse.name": "../rel/sparse" } }),
        file("n/ok.txt", "kept\n"),
      ]),
    );
    await Deno.writeFile(`${dir}/in.tar.gz`, input);
    // The check can fail: the package as it is writes outside with Python's tarfile.
    await Deno.mkdir(`${dir}/control`);
    await pythonExtract(`${dir}/in.tar.gz`, `${dir}/control`);
    assertEquals([...await tree(`${dir}/abs`), ...await tree(`${dir}/rel`)], ["file", "file", "sparse"]);
    await Promise.all(["abs/file", "rel/file", "rel/sparse"].map((path) => Deno.remove(`${dir}/${path}`)));

    const r = expectCode(await optimize(w, [`${dir}/in.tar.gz`, "--file", `${dir}/out.tar.gz`, "-o", "json"]), 0);
    assertEquals(JSON.parse(r.stdout).optimization.entries_rejected, 3);
    for (const [tool, extract] of [["python", pythonExtract], ["gnu", gnuExtract]] as const) {
      await Deno.mkdir(`${dir}/${tool}/x`, { recursive: true });
      expectCode(await extract(`${dir}/out.tar.gz`, `${dir}/${tool}/x`), 0);
      assertEquals(await tree(`${dir}/${tool}`), ["x", "x/n", "x/n/ok.txt", "x/node_1", "x/up"], tool);
      assertEquals([...await tree(`${dir}/abs`), ...await tree(`${dir}/rel`)], [], tool);
    }
  },

  async "support-package optimize: a 1 GiB log in flat memory, whatever the runtime's chunk sizes"(w: World) {
    if (missingTools("python3")) return;
    const dir = await folder(w, "huge-log");
    // Empty lines compress about 1000:1, the most gzip can: DecompressionStream hands out what
    // one read inflates to, 64 MiB for 64 KiB. The last MiB is lines of text.
    const MiB = 1024 * 1024;
    const empty = new Uint8Array(16 * MiB).fill(10);
    const lineCount = MiB / 32;
    const line = (i: number) => `line ${String(i).padStart(26, "0")}\n`;
    const text = new TextEncoder().encode(Array.from({ length: lineCount }, (_, i) => line(i)).join(""));
    const size = await writePackage(`${dir}/in.tar.gz`, async function* () {
      const chunks = [...Array(63).fill(empty), empty.subarray(MiB), text];
      yield { header: { name: "node_1/logs/huge.log", size: 1024 * MiB }, chunks };
    });
    assert(size < 2_000_000, `${size} bytes compressed`);
    const r = await optimizeMeasured(w, [`${dir}/in.tar.gz`, "--file", `${dir}/out.tar.gz`, "-o", "json"]);
    expectCode(r, 0);
    assertEquals(JSON.parse(r.stdout).optimization.files_truncated, 1);
    const [log] = await unpackTar(
      (await Deno.open(`${dir}/out.tar.gz`)).readable.pipeThrough(new DecompressionStream("gzip")),
    );
    const lines = new TextDecoder().decode(log.data).split("\n");
    const total = 1023 * MiB + lineCount;
    assertEquals(lines[0], `[storectl optimize: ${total - 1000} earlier lines cut, last 1000 of ${total} kept]`);
    assertEquals(lines.slice(-2), [line(lineCount - 1).trimEnd(), ""]);
    assert(r.peakRssBytes < MAX_RSS_BYTES, `peak RSS ${(r.peakRssBytes / 1e6).toFixed(0)} MB`);
  },

  async "support-package optimize: 80 names of 8 MB are refused and counted, in flat memory"(w: World) {
    if (missingTools("python3")) return;
    const dir = await folder(w, "long-names");
    const body = new TextEncoder().encode("a line\n");
    const size = await writePackage(`${dir}/in.tar.gz`, async function* () {
      for (let i = 0; i < 80; i++) {
        // The PAX record holding the name stays under modern-tar's 8 MiB limit for metadata.
        const name = `node_1/logs/${String(i).padStart(2, "0")}${"n".repeat(8_000_000)}.log`;
        yield { header: { name, size: body.length }, chunks: [body] };
      }
      yield { header: { name: "node_1/logs/short.log", size: body.length }, chunks: [body] };
    });
    assert(size < 2_000_000, `${size} bytes compressed`);
    const r = await optimizeMeasured(w, [`${dir}/in.tar.gz`, "--file", `${dir}/out.tar.gz`, "-o", "json"]);
    expectCode(r, 0);
    const optimization = JSON.parse(r.stdout).optimization;
    assertEquals([optimization.entries_rejected, optimization.files_processed], [80, 1]);
    const kept = await unpackTar(
      (await Deno.open(`${dir}/out.tar.gz`)).readable.pipeThrough(new DecompressionStream("gzip")),
    );
    assertEquals(kept.map((entry) => entry.header.name), ["node_1/logs/short.log"]);
    assert(r.peakRssBytes < MAX_RSS_BYTES, `peak RSS ${(r.peakRssBytes / 1e6).toFixed(0)} MB`);
  },

  async "support-package optimize: a damaged package is exit 14, saying so, and leaves no file"(w: World) {
    const dir = await folder(w, "damaged");
    const tar = await packTar([file("n/a.log", "line\n".repeat(20_000)), file("n/b.txt", "b\n")]);
    const whole = await gzip(tar);
    const badCrc = whole.slice();
    badCrc[badCrc.length - 8] ^= 0xff; // the gzip trailer's CRC-32
    const badChecksum = tar.slice();
    badChecksum[148] ^= 1; // the first tar header's checksum
    assertEquals(tar.slice(-1024), new Uint8Array(1024)); // the end-of-archive blocks, cut below
    const packages: Record<string, Uint8Array<ArrayBuffer>> = {
      "truncated": whole.slice(0, whole.length >> 1),
      "bad-crc": badCrc,
      "not-gzip": new TextEncoder().encode("<html>Not a package</html>\n"),
      "empty": new Uint8Array(0),
      "no-trailer": await gzip(tar.slice(0, -1024)),
      "bad-checksum": await gzip(badChecksum),
    };
    for (const [name, bytes] of Object.entries(packages)) {
      await Deno.writeFile(`${dir}/${name}.tar.gz`, bytes);
      const r = expectCode(await optimize(w, [`${dir}/${name}.tar.gz`, "--file", `${dir}/${name}-out.tar.gz`]), 14);
      assertMatch(r.stderr, new RegExp(`^Error: ${dir}/${name}\\.tar\\.gz is damaged: `), name);
      assert(!/bug/i.test(r.stderr), r.stderr);
    }
    const json = expectCode(await optimize(w, [`${dir}/empty.tar.gz`, "-o", "json", "--file", `${dir}/e.tar.gz`]), 14);
    assertEquals(JSON.parse(json.stderr).error.code, "damaged");
    assertEquals(json.stdout, "");
    // No output and no partial file: only the inputs are there.
    assertEquals(await tree(dir), Object.keys(packages).map((name) => `${name}.tar.gz`).sort());
  },
});
