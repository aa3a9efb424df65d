// Callbacks, not `node:fs/promises`: Node loads `node:fs` at start, the promise API costs a few
// more milliseconds of every `ctl` run to load.
import {
  close,
  type Dirent,
  lstat,
  mkdir,
  open,
  read,
  readdir,
  readFile,
  readlink,
  realpath,
  rename,
  rm,
  stat,
  statfs,
  type Stats,
  write,
} from "node:fs";
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

/** Calls a `node:fs` function with a callback as a promise. */
function call<T>(fn: (callback: (error: NodeJS.ErrnoException | null, value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => fn((error, value) => error ? reject(error) : resolve(value)));
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
  readFile: async (path) => new Uint8Array(await call<Buffer>((done) => readFile(path, done))),
  lstat: (path) => orMissing(() => call((done) => lstat(path, done))),
  stat: (path) => orMissing(() => call((done) => stat(path, done))),
  realPath: (path) => call((done) => realpath(path, done)),
  readLink: (path) => call((done) => readlink(path, done)),
  readDir: async (path) =>
    (await call<Dirent[]>((done) => readdir(path, { withFileTypes: true }, done))).map((e) => ({
      name: e.name,
      kind: e.isSymbolicLink() ? "symlink" : e.isDirectory() ? "directory" : e.isFile() ? "file" : "socket",
    })),
  async open(path, { createNew, append, mode }) {
    const fd = await call<number>((done) => open(path, createNew ? "wx" : append ? "a" : "r+", mode, done));
    return {
      write: async (bytes) => {
        for (let offset = 0; offset < bytes.length;) {
          offset += await call<number>((done) => write(fd, bytes, offset, bytes.length - offset, null, done));
        }
      },
      close: () => call((done) => close(fd, (error) => done(error, undefined))),
    };
  },
  rename: (from, to) => call((done) => rename(from, to, (error) => done(error, undefined))),
  remove: (path) => call((done) => rm(path, { force: false }, (error) => done(error, undefined))),
  mkdirAll: (path) => call((done) => mkdir(path, { recursive: true }, (error) => done(error, undefined))),
  openRead,
  freeSpace: async (dir) => {
    const stats = await call<{ bavail: number; bsize: number }>((done) => statfs(dir, done));
    return stats.bavail * stats.bsize;
  },
};

const READ_CHUNK = 1024 * 1024;

/** A file as a web stream, read as the consumer pulls. */
async function openRead(path: string): Promise<ReadableStream<Uint8Array<ArrayBuffer>>> {
  const fd = await call<number>((done) => open(path, "r", done));
  const closeFd = (): Promise<void> =>
    call<void>((done) => close(fd, (error) => done(error, undefined))).catch(() => {});
  return new ReadableStream<Uint8Array<ArrayBuffer>>({
    async pull(controller) {
      const buffer = new Uint8Array(READ_CHUNK);
      try {
        const n = await call<number>((done) => read(fd, buffer, 0, READ_CHUNK, null, done));
        if (n === 0) {
          await closeFd();
          controller.close();
        } else controller.enqueue(n === READ_CHUNK ? buffer : buffer.slice(0, n));
      } catch (error) {
        await closeFd();
        controller.error(error);
      }
    },
    cancel: closeFd,
  }, { highWaterMark: 0 });
}
