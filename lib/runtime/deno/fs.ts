import type { FsOps } from "../file_system.ts";
import type { DirEntry, FileInfo } from "../types.ts";

function info(stat: Deno.FileInfo): FileInfo {
  const kind = stat.isSymlink
    ? "symlink"
    : stat.isDirectory
    ? "directory"
    : stat.isFile
    ? "file"
    : stat.isFifo
    ? "fifo"
    : stat.isCharDevice
    ? "char-device"
    : stat.isBlockDevice
    ? "block-device"
    : "socket";
  return { kind, mode: (stat.mode ?? 0o644) & 0o777, size: stat.size, mtimeMs: stat.mtime?.getTime() ?? 0 };
}

async function orMissing(stat: () => Promise<Deno.FileInfo>): Promise<FileInfo | undefined> {
  try {
    return info(await stat());
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** File primitives on `Deno.*`. */
export const denoFsOps: FsOps = {
  readFile: (path) => Deno.readFile(path),
  lstat: (path) => orMissing(() => Deno.lstat(path)),
  stat: (path) => orMissing(() => Deno.stat(path)),
  realPath: (path) => Deno.realPath(path),
  readLink: (path) => Deno.readLink(path),
  async readDir(path) {
    const entries: DirEntry[] = [];
    for await (const e of Deno.readDir(path)) {
      const kind = e.isSymlink ? "symlink" : e.isDirectory ? "directory" : e.isFile ? "file" : "socket";
      entries.push({ name: e.name, kind });
    }
    return entries;
  },
  async open(path, { createNew, append, mode }) {
    const file = await Deno.open(
      path,
      createNew
        ? { write: true, createNew: true, mode }
        : append
        ? { append: true, create: true, mode }
        : { write: true },
    );
    // `file.write`, not `file.writable`: the stream's writer drops errors such as ENOSPC.
    return {
      async write(bytes) {
        for (let offset = 0; offset < bytes.length;) offset += await file.write(bytes.subarray(offset));
      },
      close: () => Promise.resolve(file.close()),
    };
  },
  rename: (from, to) => Deno.rename(from, to),
  remove: (path) => Deno.remove(path),
  mkdirAll: (path) => Deno.mkdir(path, { recursive: true }),
  openRead: async (path) => (await Deno.open(path, { read: true })).readable,
  freeSpace,
};

/**
 * Asks `df` (POSIX output, KiB blocks): Deno has no statfs, and its Node layer's costs the
 * startup of every run.
 */
async function freeSpace(dir: string): Promise<number | undefined> {
  const out = await new Deno.Command("df", { args: ["-Pk", "--", dir], stdout: "piped", stderr: "null" }).output();
  const fields = new TextDecoder().decode(out.stdout).trim().split("\n")[1]?.trim().split(/\s+/);
  const kib = Number(fields?.[3]);
  return out.success && Number.isFinite(kib) ? kib * 1024 : undefined;
}
