import { mkdir, open, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/**
 * Writes `data` to `path` atomically: a `.partial` file in the same directory, then a rename.
 * A failure leaves no half-written file and the previous content untouched.
 *
 * @example
 * ```ts
 * await writeFileAtomic("/tmp/ca.pem", pem, { mode: 0o644 });
 * ```
 */
/** `.partial` files being written, removed by `removePartialFiles()` when the process is interrupted. */
const partials = new Set<string>();

function partialPath(path: string): string {
  return join(dirname(path), `.${crypto.randomUUID().slice(0, 8)}.${path.split("/").pop()}.partial`);
}

export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: { mode?: number } = {},
): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const partial = partialPath(path);
  partials.add(partial);
  try {
    await writeFile(partial, data, { mode: options.mode ?? 0o644 });
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  } finally {
    partials.delete(partial);
  }
}

/**
 * Streams `body` to `path` atomically, never holding more than a chunk in memory; resolves
 * with the number of bytes written.
 */
export async function writeStreamAtomic(path: string, body: ReadableStream<Uint8Array>, mode = 0o644): Promise<number> {
  await mkdir(dirname(path), { recursive: true });
  const partial = partialPath(path);
  partials.add(partial);
  const file = await open(partial, "w", mode);
  let bytes = 0;
  try {
    for await (const chunk of body) {
      await file.write(chunk);
      bytes += chunk.length;
    }
    await file.close();
    await rename(partial, path);
    return bytes;
  } catch (error) {
    await file.close().catch(() => {});
    await rm(partial, { force: true });
    throw error;
  } finally {
    partials.delete(partial);
  }
}

/** Deletes the `.partial` files of writes still in progress (on Ctrl+C). */
export async function removePartialFiles(): Promise<void> {
  await Promise.all([...partials].map((p) => rm(p, { force: true })));
}

/** A text file's content. */
export function readTextFile(path: string): Promise<string> {
  return readFile(path, "utf8");
}
