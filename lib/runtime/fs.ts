import { mkdir, rename, rm, writeFile } from "node:fs/promises";
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
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: { mode?: number } = {},
): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const partial = join(dir, `.${crypto.randomUUID().slice(0, 8)}.${path.split("/").pop()}.partial`);
  try {
    await writeFile(partial, data, { mode: options.mode ?? 0o644 });
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}
