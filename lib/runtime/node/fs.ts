import type { Stats } from "node:fs";
import { lstat, mkdir, open, readFile, readlink, realpath, rename, rm, stat } from "node:fs/promises";
import type { FsOps } from "../file_system.ts";
import type { FileInfo } from "../types.ts";

function info(stats: Stats): FileInfo {
  const kind = stats.isSymbolicLink()
    ? "symlink"
    : stats.isDirectory()
    ? "directory"
    : stats.isFile()
    ? "file"
    : stats.isFIFO()
    ? "fifo"
    : stats.isCharacterDevice()
    ? "char-device"
    : stats.isBlockDevice()
    ? "block-device"
    : "socket";
  return { kind, mode: stats.mode & 0o777, size: stats.size, mtimeMs: stats.mtimeMs };
}

async function orMissing(read: () => Promise<Stats>): Promise<FileInfo | undefined> {
  try {
    return info(await read());
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw error;
  }
}

/** File primitives on `node:fs`. */
export const nodeFsOps: FsOps = {
  readFile: async (path) => new Uint8Array(await readFile(path)),
  lstat: (path) => orMissing(() => lstat(path)),
  stat: (path) => orMissing(() => stat(path)),
  realPath: (path) => realpath(path),
  readLink: (path) => readlink(path),
  async open(path, { createNew, mode }) {
    const file = await open(path, createNew ? "wx" : "r+", mode);
    return {
      write: async (bytes) => {
        for (let offset = 0; offset < bytes.length;) offset += (await file.write(bytes, offset)).bytesWritten;
      },
      close: () => file.close(),
    };
  },
  rename: (from, to) => rename(from, to),
  remove: (path) => rm(path, { force: false }),
  mkdirAll: (path) => mkdir(path, { recursive: true }).then(() => {}),
};
