import { StoreCtlError } from "../errors/mod.ts";
import { errnoCode, fileSystemError } from "./fs_error.ts";
import { dirname, joinPath } from "./path.ts";
import type { DirEntry, FileInfo, FileSystem } from "./types.ts";

/** An open file being written. */
export interface FileSink {
  write(bytes: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

/** The primitive operations each runtime provides; `createFileSystem()` adds storectl's rules. */
export interface FsOps {
  readFile(path: string): Promise<Uint8Array>;
  /** Undefined when nothing is at `path`; symlinks are not followed. */
  lstat(path: string): Promise<FileInfo | undefined>;
  /** Undefined when nothing is at `path` (or a symlink points at nothing). */
  stat(path: string): Promise<FileInfo | undefined>;
  realPath(path: string): Promise<string>;
  /** The entries of a directory: names and kinds (symlinks not followed). */
  readDir(path: string): Promise<DirEntry[]>;
  readLink(path: string): Promise<string>;
  /**
   * `createNew` creates the file and fails if it exists; `append` creates it if missing and
   * writes at its end; otherwise an existing file is opened as it is.
   */
  open(path: string, options: { createNew: boolean; append?: boolean; mode?: number }): Promise<FileSink>;
  rename(from: string, to: string): Promise<void>;
  remove(path: string): Promise<void>;
  mkdirAll(path: string): Promise<void>;
  openRead(path: string): Promise<ReadableStream<Uint8Array<ArrayBuffer>>>;
  /** Undefined when the runtime cannot tell. */
  freeSpace(dir: string): Promise<number | undefined>;
}

const LOCK_TIMEOUT_MS = 10_000;
/** A lock file older than this was left by a process that died: config updates take milliseconds. */
const LOCK_STALE_MS = 5_000;

/**
 * storectl's file rules over a runtime's primitives: atomic writes through `.partial` files that
 * an interrupt removes, streams into FIFOs and devices, refusal to replace anything that is not
 * a regular file, lock files, and errors that name the path and the fix.
 */
export function createFileSystem(ops: FsOps): FileSystem {
  /** `.partial` and lock files to remove if the process is interrupted. */
  const temporary = new Set<string>();
  const guard = async <T>(action: string, path: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw fileSystemError(error, action, path);
    }
  };

  /** Where a write to `path` lands: through a symlink, its target. */
  async function resolveTarget(path: string): Promise<{ path: string; info?: FileInfo }> {
    const link = await ops.lstat(path);
    if (link?.kind !== "symlink") return { path, info: link };
    const info = await ops.stat(path);
    if (info) return { path: await ops.realPath(path), info };
    const to = await ops.readLink(path); // a dangling link: create what it points at
    return { path: to.startsWith("/") ? to : joinPath(dirname(path), to) };
  }

  async function writeAtomic(path: string, body: ReadableStream<Uint8Array>, mode: number | undefined) {
    const dir = dirname(path);
    await guard("create the directory", dir, () => ops.mkdirAll(dir));
    const partial = joinPath(dir, `.${crypto.randomUUID().slice(0, 8)}.${path.split("/").pop()}.partial`);
    temporary.add(partial);
    let bytes = 0;
    try {
      const file = await guard("write", partial, () => ops.open(partial, { createNew: true, mode }));
      bytes = await copy(file, body, path);
      await guard("write", path, () => ops.rename(partial, path));
      return bytes;
    } catch (error) {
      await ops.remove(partial).catch(() => {});
      throw error;
    } finally {
      temporary.delete(partial);
    }
  }

  async function writeInPlace(path: string, body: ReadableStream<Uint8Array>) {
    return await copy(await guard("open", path, () => ops.open(path, { createNew: false })), body, path);
  }

  /** Copies `body` into `file` and closes it; a failed close (a late ENOSPC) fails the write. */
  async function copy(file: FileSink, body: ReadableStream<Uint8Array>, path: string): Promise<number> {
    let bytes = 0;
    try {
      for await (const chunk of body) {
        await guard("write", path, () => file.write(chunk));
        bytes += chunk.length;
      }
    } catch (error) {
      await file.close().catch(() => {});
      throw error;
    }
    await guard("write", path, () => file.close());
    return bytes;
  }

  const fs: FileSystem = {
    readFile: (path) => guard("read", path, () => ops.readFile(path)),
    async readTextFile(path) {
      return new TextDecoder().decode(await fs.readFile(path));
    },
    async readTextFileIfExists(path) {
      try {
        return new TextDecoder().decode(await ops.readFile(path));
      } catch (error) {
        if (errnoCode(error) === "ENOENT") return undefined;
        throw fileSystemError(error, "read", path);
      }
    },
    info: (path) => guard("read", path, () => ops.stat(path)),
    realPath: (path) => guard("resolve", path, () => ops.realPath(path)),
    readDir: (path) => guard("list", path, () => ops.readDir(path)),
    async appendTextFile(path, text, options = {}) {
      const file = await guard("write", path, () => ops.open(path, { createNew: false, append: true, ...options }));
      try {
        await guard("write", path, () => file.write(new TextEncoder().encode(text)));
      } finally {
        await file.close();
      }
    },
    writeFileAtomic(path, data, options = {}) {
      const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes);
          controller.close();
        },
      });
      return fs.writeStream(path, body, options).then(() => {});
    },
    async writeStream(path, body, options = {}) {
      try {
        const target = await guard("write", path, () => resolveTarget(path));

        const kind = target.info?.kind;
        switch (kind) {
          case undefined:
            return await writeAtomic(target.path, body, options.mode);
          case "file":
            return await writeAtomic(target.path, body, target.info!.mode);
          case "fifo":
          case "char-device":
            return await writeInPlace(target.path, body);
          case "directory":
            throw new StoreCtlError("filesystem", `Cannot write ${path}: it is a directory (EISDIR)`, {
              tips: ["Give a file path"],
            });
          default:
            throw new StoreCtlError(
              "filesystem",
              `Cannot write ${path}: it is a ${kind.replace("-", " ")}, which is never replaced`,
              { tips: ["Give the path of a regular file"] },
            );
        }
      } catch (error) {
        await body.cancel().catch(() => {});
        throw error;
      }
    },
    readStream: (path) => guard("read", path, () => ops.openRead(path)),
    freeSpace: (dir) => ops.freeSpace(dir).catch(() => undefined),
    async checkWritableDirectory(dir) {
      const probe = joinPath(dir, `.${crypto.randomUUID().slice(0, 8)}.probe`);
      await guard("create files in", dir, async () => {
        await (await ops.open(probe, { createNew: true, mode: 0o600 })).close();
        await ops.remove(probe);
      });
    },
    async removePartialFiles() {
      await Promise.all([...temporary].map((path) => ops.remove(path).catch(() => {})));
    },
    async lock(path, options = {}) {
      const lockPath = `${path}.lock`;
      const timeoutMs = options.timeoutMs ?? LOCK_TIMEOUT_MS;
      const started = Date.now();
      await guard("create the directory", dirname(path), () => ops.mkdirAll(dirname(path)));
      for (let delay = 5;; delay = Math.min(delay * 2, 100)) {
        try {
          await (await ops.open(lockPath, { createNew: true, mode: 0o600 })).close();
          temporary.add(lockPath);
          return async () => {
            temporary.delete(lockPath);
            await ops.remove(lockPath).catch(() => {});
          };
        } catch (error) {
          if (errnoCode(error) !== "EEXIST") throw fileSystemError(error, "create the lock file", lockPath);
        }
        const held = await ops.lstat(lockPath);
        if (held && Date.now() - held.mtimeMs > LOCK_STALE_MS) {
          await ops.remove(lockPath).catch(() => {}); // left by a process that died
          continue;
        }
        if (Date.now() - started > timeoutMs) {
          throw new StoreCtlError(
            "filesystem",
            `Cannot lock ${path}: another process has been changing it for over ${timeoutMs / 1000} s (${lockPath})`,
            { tips: [`Try again; if nothing else is changing it, delete ${lockPath}`] },
          );
        }
        await new Promise((resolve) => setTimeout(resolve, delay * (0.5 + Math.random())));
      }
    },
  };
  return fs;
}
