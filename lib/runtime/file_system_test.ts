import { assert, assertEquals, assertMatch, assertRejects } from "../../testing/assert.ts";
import { missingTools, requireTool } from "../../testing/tools.ts";
import type { StoreCtlError } from "../errors/mod.ts";
import { runtime } from "./deno.ts";
import { createFileSystem, type FsOps } from "./file_system.ts";

const fs = runtime.fs;
const bytes = (text: string) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new TextEncoder().encode(text));
      c.close();
    },
  });

async function inTempDir(fn: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "fs-test-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("writeStream() writes into a character device in place and never replaces it", async () => {
  assertEquals(await fs.writeStream("/dev/null", bytes("discarded")), 9);
  const info = await Deno.lstat("/dev/null");
  assert(info.isCharDevice, "/dev/null is still a character device");
});

Deno.test("writeStream() writes into a FIFO for its reader and leaves the FIFO in place", {
  ignore: missingTools("mkfifo"),
}, async () => {
  await inTempDir(async (dir) => {
    const fifo = `${dir}/pipe`;
    await new Deno.Command(requireTool("mkfifo"), { args: [fifo] }).output();
    const reader = Deno.readTextFile(fifo);
    assertEquals(await fs.writeStream(fifo, bytes("through the pipe")), 16);
    assertEquals(await reader, "through the pipe");
    assert((await Deno.lstat(fifo)).isFifo);
  });
});

Deno.test("writeStream() through a symlink replaces its target atomically and keeps the link", async () => {
  await inTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/real.txt`, "old", { mode: 0o600 });
    await Deno.symlink("real.txt", `${dir}/link.txt`);
    await fs.writeStream(`${dir}/link.txt`, bytes("new"));
    assert((await Deno.lstat(`${dir}/link.txt`)).isSymlink, "the link stays a link");
    assertEquals(await Deno.readTextFile(`${dir}/real.txt`), "new");
    assertEquals((await Deno.stat(`${dir}/real.txt`)).mode! & 0o777, 0o600, "the target keeps its mode");
    await Deno.symlink("made.txt", `${dir}/dangling`);
    await fs.writeStream(`${dir}/dangling`, bytes("created"));
    assertEquals(await Deno.readTextFile(`${dir}/made.txt`), "created");
    assertEquals((await Array.fromAsync(Deno.readDir(dir))).filter((e) => e.name.endsWith(".partial")), []);
  });
});

Deno.test("writeStream() refuses directories and sockets with errors naming the path", async () => {
  await inTempDir(async (dir) => {
    const directory = await assertRejects(() => fs.writeStream(dir, bytes("x"))) as StoreCtlError;
    assertEquals([directory.code, directory.message], [
      "filesystem",
      `Cannot write ${dir}: it is a directory (EISDIR)`,
    ]);
    const listener = Deno.listen({ transport: "unix", path: `${dir}/sock` });
    try {
      const socket = await assertRejects(() => fs.writeStream(`${dir}/sock`, bytes("x"))) as StoreCtlError;
      assertMatch(socket.message, /it is a socket, which is never replaced/);
      assert((await Deno.lstat(`${dir}/sock`)).isSocket);
    } finally {
      listener.close();
    }
  });
});

Deno.test("file-system failures are classified with the path and the fix", async () => {
  await inTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/file`, "");
    const cases: [string, RegExp][] = [
      [`${dir}/file/x.tgz`, /^Cannot write .*\/file\/x\.tgz: a part of the path is not a directory \(ENOTDIR\)$/],

      [`${dir}/${"n".repeat(300)}`, /the name is too long \(ENAMETOOLONG\)$/],
      ["/dev/full", /^Cannot write \/dev\/full: no space left on the device \(ENOSPC\)$/],
    ];
    for (const [path, pattern] of cases) {
      const error = await assertRejects(() => fs.writeStream(path, bytes("x"))) as StoreCtlError;
      assertEquals(error.code, "filesystem", error.message);
      assertMatch(error.message, pattern);
      assert(error.tips.length > 0);
    }
  });
  // EROFS and EACCES come from the same table; a read-only mount is not available everywhere.
  const readOnly: FsOps = {
    ...({} as FsOps),
    lstat: () => Promise.resolve(undefined),
    mkdirAll: () => Promise.resolve(),
    open: () => Promise.reject(Object.assign(new Error("Read-only file system (os error 30)"), { code: "EROFS" })),
    remove: () => Promise.resolve(),
  };
  const error = await assertRejects(() =>
    createFileSystem(readOnly).writeStream("/ro/a.tgz", bytes("x"))
  ) as StoreCtlError;
  assertMatch(
    error.message,
    /^Cannot write \/ro\/\.[0-9a-f]{8}\.a\.tgz\.partial: the file system is read-only \(EROFS\)$/,
  );
  assertEquals(error.tips, ["Choose a path on a writable file system"]);
});

Deno.test("lock() serialises holders, and breaks a lock left by a process that died", async () => {
  await inTempDir(async (dir) => {
    const order: string[] = [];
    const release = await fs.lock(`${dir}/config.toml`);
    const second = fs.lock(`${dir}/config.toml`).then((r) => (order.push("second"), r));
    await new Promise((r) => setTimeout(r, 50));
    order.push("first done");
    await release();
    await (await second)();
    assertEquals(order, ["first done", "second"]);
    await Deno.writeTextFile(`${dir}/config.toml.lock`, "");
    await Deno.utime(`${dir}/config.toml.lock`, new Date(0), new Date(0));
    await (await fs.lock(`${dir}/config.toml`, { timeoutMs: 1000 }))();
    const held = await fs.lock(`${dir}/config.toml`);
    const busy = await assertRejects(() => fs.lock(`${dir}/config.toml`, { timeoutMs: 100 })) as StoreCtlError;
    assertMatch(busy.message, /another process has been changing it for over 0\.1 s/);
    await held();
  });
});

Deno.test("readStream() streams a file's bytes; a missing file names the path", async () => {
  await inTempDir(async (dir) => {
    const data = new Uint8Array(3 * 1024 * 1024 + 17).map((_, i) => i % 251);
    await Deno.writeFile(`${dir}/data.bin`, data);
    const read = await new Response(await fs.readStream(`${dir}/data.bin`)).bytes();
    assertEquals(read.length, data.length);
    assert(read.every((b, i) => b === data[i]), "the same bytes");
    const error = await assertRejects(() => fs.readStream(`${dir}/missing.bin`));
    assertMatch(error.message, /missing\.bin/);
  });
});

Deno.test(
  "freeSpace() reports the bytes df sees free on the directory's file system",
  { ignore: missingTools("df") },
  async () => {
    const free = await fs.freeSpace(Deno.cwd());
    assert(free !== undefined && free > 0, `free space ${free}`);
    const df = new TextDecoder().decode((await new Deno.Command("df", { args: ["-Pk", Deno.cwd()] }).output()).stdout);
    const kib = Number(df.trim().split("\n")[1].trim().split(/\s+/)[3]);
    assert(Math.abs(free - kib * 1024) < 512 * 1024 * 1024, `${free} vs ${kib} KiB`); // others write meanwhile
    assertEquals(await fs.freeSpace("/no/such/dir"), undefined);
  },
);
