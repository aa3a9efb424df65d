import { createTarPacker, packTar, type TarEntry, type TarHeader, unpackTar } from "modern-tar";
import { assert, assertEquals, assertMatch, assertRejects } from "../../testing/assert.ts";
import { missingTools, requireTool } from "../../testing/tools.ts";
import { DamagedPackageError } from "./damaged.ts";
import { formatSize } from "../output/mod.ts";
import { createOptimizer, type OptimizeAction, type OptimizeOptions, type OptimizeStats } from "./optimize.ts";

const encoder = new TextEncoder();
const MTIME = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));

function gz(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  return new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"))).bytes();
}

function file(name: string, body: string, extra: Partial<TarHeader> = {}): TarEntry {
  return { header: { name, size: encoder.encode(body).length, mtime: MTIME, mode: 0o640, ...extra }, body };
}

/** Runs the optimizer over `input` (a tar.gz) and unpacks what it wrote. */
async function optimize(input: Uint8Array<ArrayBuffer>, options: OptimizeOptions = {}) {
  const actions: OptimizeAction[] = [];
  const optimizer = createOptimizer({ ...options, onAction: (a) => actions.push(a) });
  const output = await new Response(new Blob([input]).stream().pipeThrough(optimizer)).bytes();
  const entries = await unpackTar(new Blob([output]).stream().pipeThrough(new DecompressionStream("gzip")));
  const stats: OptimizeStats = await optimizer.stats;
  const byName = new Map(entries.map((e) => [e.header.name, e]));
  const text = (name: string) => new TextDecoder().decode(byName.get(name)?.data);
  return { output, entries, byName, text, actions, stats };
}

Deno.test("createOptimizer() rejects unsafe names, never writing them, and reports each", async () => {
  const input = await gz(
    await packTar([
      file("ok.txt", "fine"),
      file("../escape.txt", "evil"),
      file("/etc/passwd", "evil"),
      file("a/../../escape2.txt", "evil"),
      { header: { name: "../up/", type: "directory", size: 0 } },
      { header: { name: "link-out", type: "link", linkname: "../../etc/shadow", size: 0 } },
      { header: { name: "sym", type: "symlink", linkname: "/var/log/messages", size: 0 } },
    ]),
  );
  const { entries, actions, stats, byName } = await optimize(input);
  assertEquals(entries.map((e) => e.header.name), ["ok.txt", "sym"]);
  // A symlink is copied as it is (its target is data, never followed).
  assertEquals(byName.get("sym")?.header.type, "symlink");
  assertEquals(byName.get("sym")?.header.linkname, "/var/log/messages");
  assertEquals(
    actions.map((a) => [a.action, a.name, a.detail]),
    [
      ["rejected", "../escape.txt", "unsafe name: a '..' component"],
      ["rejected", "/etc/passwd", "unsafe name: an absolute path"],
      ["rejected", "a/../../escape2.txt", "unsafe name: a '..' component"],
      ["rejected", "../up/", "unsafe name: a '..' component"],
      ["rejected", "link-out", "unsafe link target: a '..' component"],
    ],
  );
  assertEquals(stats.entriesRejected, 5);
});

Deno.test("createOptimizer() rejects entries reached through an earlier symbolic link, and GNU sparse names", async () => {
  const link = (name: string, linkname: string, type: "symlink" | "link" = "symlink"): TarEntry => ({
    header: { name, type, linkname, size: 0 },
  });
  const input = await gz(
    await packTar([
      link("node_1", "/abs/dir"),
      file("node_1/file", "abs"),
      link("up", "../x"),
      file("up/file", "rel"),
      file("./UP//deeper/./file", "case and spelling do not matter"),
      { header: { name: "node_1/", type: "directory", size: 0 } },
      file("node_1", "written through the link"),
      link("hard-through", "node_1/secret", "link"),
      link("hard-to-link", "up", "link"),
      link("inside", "n"),
      file("inside/y.txt", "even a link within the archive"),
      file("sparse", "s", { pax: { "GNU.sparse.name": "../x" } }),
      file("sparse-map", "s", { pax: { "GNU.sparse.major": "1", "GNU.sparse.minor": "0" } }),
      file("n/ok.txt", "fine"),
      file("node_10/file", "a sibling of the link, not under it"),
    ]),
  );
  const { entries, actions, stats } = await optimize(input);
  assertEquals(entries.map((e) => e.header.name), ["node_1", "up", "inside", "n/ok.txt", "node_10/file"]);
  assertEquals(actions.map((a) => [a.action, a.name, a.detail]), [
    ["rejected", "node_1/file", "unsafe name: under the symbolic link node_1 (an earlier entry)"],
    ["rejected", "up/file", "unsafe name: under the symbolic link up (an earlier entry)"],
    ["rejected", "./UP//deeper/./file", "unsafe name: under the symbolic link up (an earlier entry)"],
    ["rejected", "node_1/", "unsafe name: the symbolic link node_1 (an earlier entry)"],
    ["rejected", "node_1", "unsafe name: the symbolic link node_1 (an earlier entry)"],
    ["rejected", "hard-through", "unsafe link target: under the symbolic link node_1 (an earlier entry)"],
    ["rejected", "hard-to-link", "unsafe link target: the symbolic link up (an earlier entry)"],
    ["rejected", "inside/y.txt", "unsafe name: under the symbolic link inside (an earlier entry)"],
    [
      "rejected",
      "sparse",
      "GNU sparse-file records (GNU.sparse.name): extractors would take the name and data from them",
    ],
    [
      "rejected",
      "sparse-map",
      "GNU sparse-file records (GNU.sparse.major, GNU.sparse.minor): extractors would take the name and data from them",
    ],
  ]);
  assertEquals(stats.entriesRejected, 10);
});

Deno.test("createOptimizer() rejects names and link targets longer than 4096 bytes, showing them cut", async () => {
  const longest = `n/${"a".repeat(4090)}.log`; // 4096 bytes: kept
  const tooLong = `n/${"ü".repeat(2046)}.log`; // 2046 × 2 + 6 = 4098 bytes
  const long = `n/${"b".repeat(60_000)}.log`;
  const huge = `n/${"c".repeat(1_000_000)}.log`; // its PAX header is never read
  const input = await gz(
    await packTar([
      file(longest, "kept\n"),
      file(tooLong, "refused\n"),
      file(long, "refused\n"),
      file(huge, "refused\n"),
      { header: { name: "n/link", type: "symlink", linkname: "t".repeat(4097), size: 0 } },
      file("n/after.log", "after\n"),
    ]),
  );
  const { entries, actions, stats } = await optimize(input);
  assertEquals(entries.map((e) => e.header.name), [longest, "n/after.log"]);
  assertEquals(actions.map((a) => [a.name, a.detail]), [
    [`${tooLong.slice(0, 100)}… (4098 bytes)`, "unsafe name: longer than 4096 bytes"],
    [`${long.slice(0, 100)}… (60006 bytes)`, "unsafe name: longer than 4096 bytes"],
    // The name in the tar header itself: the first 100 bytes.
    [huge.slice(0, 100), "metadata (a PAX header or GNU long name) of 1000020 bytes, over 65536"],
    ["n/link", "unsafe link target: longer than 4096 bytes"],
  ]);
  assertEquals(stats.entriesRejected, 4);
});

Deno.test("createOptimizer() removes nested archives and rotated copies whose current log came first", async () => {
  const input = await gz(
    await packTar([
      file("n1/logs/app.log", "current\n"),
      file("n1/logs/app.log.1", "older\n"),
      file("n1/logs/app.log.2.gz", "\x1f\x8bnot really"),
      file("n1/bundle.TGZ", "archive"),
      file("n2/logs/orphan.log.1", "only rotated copy\n"),
      { header: { name: "n1/hard-to-gz", type: "link", linkname: "n1/logs/app.log.2.gz", size: 0 } },
    ]),
  );
  const { entries, actions, stats, text } = await optimize(input);
  assertEquals(entries.map((e) => e.header.name), ["n1/logs/app.log", "n2/logs/orphan.log.1"]);
  assertEquals(text("n2/logs/orphan.log.1"), "only rotated copy\n");
  assertEquals(actions.map((a) => `${a.action} ${a.name}: ${a.detail}`), [
    "removed n1/logs/app.log.1: rotated copy of n1/logs/app.log",
    "removed n1/logs/app.log.2.gz: nested archive",
    "removed n1/bundle.TGZ: nested archive",
    "removed n1/hard-to-gz: hard link to removed n1/logs/app.log.2.gz",
  ]);
  assertEquals([stats.filesProcessed, stats.filesRemoved, stats.filesTruncated], [5, 4, 0]);
});

Deno.test("createOptimizer() stores byte-identical copies once, as hard links to the first", async () => {
  const conf = "port 12000\nmaxmemory-policy volatile-lru\n";
  const input = await gz(
    await packTar([
      file("cluster/info.json", '{"name":"c1"}\n'),
      file("n1/info.json", '{"name":"c1"}\n', { mode: 0o600 }),
      file("n1/redis.conf", conf),
      file("n2/redis.conf", conf),
      file("n2/other.conf", conf + "#"),
      file("empty-a", ""),
      file("empty-b", ""),
    ]),
  );
  const { entries, byName, actions, stats } = await optimize(input);
  assertEquals(entries.map((e) => [e.header.name, e.header.type, e.header.linkname || undefined]), [
    ["cluster/info.json", "file", undefined],
    ["n1/info.json", "link", "cluster/info.json"],
    ["n1/redis.conf", "file", undefined],
    ["n2/redis.conf", "link", "n1/redis.conf"],
    ["n2/other.conf", "file", undefined],
    ["empty-a", "file", undefined],
    ["empty-b", "link", "empty-a"],
  ]);
  assertEquals(byName.get("n2/other.conf")?.data?.length, conf.length + 1);
  assertEquals(actions.filter((a) => a.action === "linked").length, 3);
  assertMatch(actions[0].detail, /byte-identical to cluster\/info\.json/);
  assertEquals(stats.filesRemoved, 3);
});

Deno.test("createOptimizer() keeps modes, mtimes, owners, directories, PAX and GNU long names", async () => {
  const longName = `deep/${"d".repeat(120)}/${"f".repeat(150)}.txt`; // needs PAX: no USTAR split fits
  const gnuName = `gnu/${"g".repeat(200)}.json`;
  const unicode = `n1/журнал-${"ü".repeat(60)}.txt`;
  const tar = await packTar([
    { header: { name: "n1/", type: "directory", size: 0, mode: 0o750, mtime: MTIME } },
    file("n1/run.sh", "#!/bin/sh\n", { mode: 0o755, uid: 1001, gid: 1002, uname: "store", gname: "ops" }),
    file(longName, "long"),
    // A GNU long-name record, as GNU tar writes it, then the entry it names.
    {
      header: { name: "././@LongLink", type: "gnu-long-name", size: gnuName.length + 1 },
      body: gnuName + "\0",
    },
    file(gnuName.slice(0, 99), "gnu"),
    file(unicode, "ü"),
    file("n1/precise.txt", "x", { pax: { mtime: "1767323045.25" } }),
  ]);
  const { byName, entries } = await optimize(await gz(tar));
  assertEquals(entries.map((e) => e.header.name), ["n1/", "n1/run.sh", longName, gnuName, unicode, "n1/precise.txt"]);
  const dir = byName.get("n1/")!.header;
  assertEquals([dir.type, dir.mode, dir.mtime?.getTime()], ["directory", 0o750, MTIME.getTime()]);
  const script = byName.get("n1/run.sh")!.header;
  assertEquals(
    [script.mode, script.uid, script.gid, script.uname, script.gname, script.mtime?.getTime()],
    [0o755, 1001, 1002, "store", "ops", MTIME.getTime()],
  );
  assertEquals(byName.get("n1/precise.txt")!.header.pax?.mtime, "1767323045.25");
  assertEquals(new TextDecoder().decode(byName.get(gnuName)!.data), "gnu");
});

/** A tar.gz with one log of `lines` lines, generated and compressed as a stream. */
function hugeLogPackage(lines: number): ReadableStream<Uint8Array<ArrayBuffer>> {
  const line = (i: number) => `${String(i).padStart(9, "0")}\n`; // 10 bytes: the test stays fast
  const { readable, controller } = createTarPacker();
  (async () => {
    const writer = controller.add({ name: "n1/logs/huge.log", size: lines * 10, mtime: MTIME }).getWriter();
    const perChunk = 20_000;
    for (let i = 0; i < lines; i += perChunk) {
      let text = "";
      for (let j = i; j < Math.min(lines, i + perChunk); j++) text += line(j);
      await writer.write(encoder.encode(text));
    }
    await writer.close();
    controller.finalize();
  })();
  return readable.pipeThrough(new CompressionStream("gzip"));
}

Deno.test("createOptimizer() cuts a 5 million-line log to its last lines behind a marker", async () => {
  const actions: OptimizeAction[] = [];
  const optimizer = createOptimizer({ logLines: 1000, onAction: (a) => actions.push(a) });
  const output = hugeLogPackage(5_000_000).pipeThrough(optimizer);
  const [entry] = await unpackTar(output.pipeThrough(new DecompressionStream("gzip")));
  const lines = new TextDecoder().decode(entry.data).split("\n");
  assertEquals(lines[0], "[storectl optimize: 4999000 earlier lines cut, last 1000 of 5000000 kept]");
  assertEquals(lines[1], "004999000");
  assertEquals(lines[1000], "004999999");
  assertEquals(lines.length, 1002); // marker, 1000 lines, and the empty piece after the last newline
  assertEquals(entry.header.mtime?.getTime(), MTIME.getTime());
  const stats = await optimizer.stats;
  assertEquals([stats.filesProcessed, stats.filesTruncated, stats.filesRemoved], [1, 1, 0]);
  assert(stats.reductionPercent > 99, `${stats.reductionPercent}`);
  assertEquals(actions.map((a) => a.detail), [
    `kept the last 1000 of 5000000 lines (47.7 MiB → ${formatSize(entry.data!.length)})`,
  ]);
});

Deno.test("createOptimizer() fails on a cut or corrupt package instead of writing a short one", async () => {
  const whole = await gz(await packTar([file("a.txt", "a".repeat(100_000)), file("b.txt", "b")]));
  const cut = createOptimizer();
  await assertRejects(() =>
    new Response(new Blob([whole.slice(0, whole.length / 2)]).stream().pipeThrough(cut)).bytes()
  );
  await assertRejects(() => cut.stats);

  const tar = await packTar([file("a.txt", "a")]);
  tar[148] ^= 1; // the header checksum
  const corrupt = createOptimizer();
  const corruptGz = await gz(tar);
  await assertRejects(() => new Response(new Blob([corruptGz]).stream().pipeThrough(corrupt)).bytes(), /checksum/);
  await assertRejects(() => corrupt.stats);
});

Deno.test("createOptimizer() says how a package is damaged: gzip stream, tar archive, or empty", async () => {
  const tar = await packTar([file("a.log", "line\n".repeat(20_000)), file("b.txt", "b\n")]);
  const whole = await gz(tar);
  const badCrc = whole.slice();
  badCrc[badCrc.length - 8] ^= 0xff;
  const badChecksum = tar.slice();
  badChecksum[148] ^= 1;
  const cases: [string, Uint8Array<ArrayBuffer>, RegExp][] = [
    ["truncated", whole.slice(0, whole.length >> 1), /^it is not a complete gzip stream \(.+\)$/],
    ["bad CRC", badCrc, /^it is not a complete gzip stream \(.+\)$/],
    ["not gzip", encoder.encode("<html>Not a package</html>\n"), /^it is not a complete gzip stream \(.+\)$/],
    ["empty", new Uint8Array(0), /^it is empty \(0 bytes\)$/],
    ["no trailer", await gz(tar.slice(0, -1024)), /^it is not a complete tar archive \(tar archive is truncated\)$/],
    ["bad checksum", await gz(badChecksum), /^it is not a complete tar archive \(invalid tar header checksum\)$/],
  ];
  for (const [label, bytes, problem] of cases) {
    const optimizer = createOptimizer();
    const error = await assertRejects(() => new Response(new Blob([bytes]).stream().pipeThrough(optimizer)).bytes());
    assert(error instanceof DamagedPackageError, `${label}: ${error}`);
    assertEquals(error.code, "damaged", label);
    assertMatch(error.problem, problem, label);
    assertEquals(error.message, `The support package is damaged: ${error.problem}`);
    assertEquals(await optimizer.stats.catch((e) => e), error, label);
  }
});

Deno.test("createOptimizer() passes its input's own failure through as it is, never as damage", async () => {
  const whole = await gz(await packTar([file("a.log", "x\n".repeat(100_000))]));
  const dropped = new Error("connection reset");
  const input = new ReadableStream<Uint8Array<ArrayBuffer>>({
    start(controller) {
      controller.enqueue(whole.slice(0, 200));
      controller.error(dropped);
    },
  });
  const optimizer = createOptimizer();
  const error = await assertRejects(() => new Response(input.pipeThrough(optimizer)).bytes());
  assertEquals(error, dropped);
});

Deno.test("createOptimizer() reports sizes before and after", async () => {
  const input = await gz(await packTar([file("a.log", "line\n".repeat(5000)), file("b.gz", "x".repeat(10))]));
  const { output, stats } = await optimize(input, { logLines: 10 });
  assertEquals(stats.bytesBefore, input.length);
  assertEquals(stats.bytesAfter, output.length);
  assertEquals(stats.reductionPercent, Math.round((1 - output.length / input.length) * 1000) / 10);
  assertEquals([stats.filesProcessed, stats.filesTruncated, stats.filesRemoved, stats.entriesRejected], [2, 1, 1, 0]);
});

Deno.test("createOptimizer() refuses a log line count below 1", () => {
  for (const logLines of [0, -1, 1.5]) {
    try {
      createOptimizer({ logLines });
      throw new Error("accepted");
    } catch (error) {
      assertMatch((error as Error).message, /logLines must be a whole number of at least 1/);
    }
  }
});

Deno.test("createOptimizer() output extracts with GNU tar: links recreate duplicates, long names and modes stay", {
  ignore: missingTools("tar"),
}, async () => {
  const longName = `deep/${"d".repeat(120)}/${"f".repeat(150)}.txt`;
  const input = await gz(
    await packTar([
      { header: { name: "n1/", type: "directory", size: 0, mode: 0o750, mtime: MTIME } },
      file("n1/a.json", '{"same":true}\n'),
      file("n2/a.json", '{"same":true}\n'),
      file("n1/run.sh", "#!/bin/sh\n", { mode: 0o755 }),
      file(longName, "long"),
      file("n1/app.log", "x\n".repeat(50)),
      file("../evil", "no"),
    ]),
  );
  const { output } = await optimize(input, { logLines: 5 });
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeFile(`${dir}/out.tar.gz`, output);
    await Deno.mkdir(`${dir}/x`);
    const tar = await new Deno.Command(requireTool("tar"), {
      args: ["-xzf", `${dir}/out.tar.gz`, "-C", `${dir}/x`],
      stderr: "piped",
    }).output();
    assertEquals(tar.code, 0, new TextDecoder().decode(tar.stderr));
    assertEquals(await Deno.readTextFile(`${dir}/x/n2/a.json`), '{"same":true}\n');
    assertEquals((await Deno.stat(`${dir}/x/n2/a.json`)).nlink, 2); // one copy of the bytes, two names
    assertEquals((await Deno.stat(`${dir}/x/n1/run.sh`)).mode! & 0o777, 0o755);
    assertEquals((await Deno.stat(`${dir}/x/n1`)).mode! & 0o777, 0o750);
    assertEquals(await Deno.readTextFile(`${dir}/x/${longName}`), "long");
    assertEquals((await Deno.stat(`${dir}/x/n1/run.sh`)).mtime?.getTime(), MTIME.getTime());
    const log = (await Deno.readTextFile(`${dir}/x/n1/app.log`)).split("\n");
    assertEquals(log[0], "[storectl optimize: 45 earlier lines cut, last 5 of 50 kept]");
    assertEquals((await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort(), ["out.tar.gz", "x"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
