import { type FileSystem, joinPath } from "../runtime/mod.ts";
import { PipelineInputError } from "./errors.ts";

/** A document read from the source folder, before chunking. */
export interface SourceDocument {
  readonly title: string;
  /** Its path relative to the source folder (`guide/a.md`; `list.json#2` for the third of a JSON array). */
  readonly source: string;
  readonly content: string;
}

/** A file of the source folder that was not read, and why. */
export interface SkippedFile {
  readonly path: string;
  readonly reason: string;
}

/** The extensions `prepare` reads. */
export const SOURCE_EXTENSIONS: readonly string[] = [".md", ".txt", ".json"];

/**
 * The largest source file read, in bytes (`PIPELINE_MAX_FILE_BYTES`): a file is read whole, and
 * chunked, staged and stored as one document in one atomic step, so its size sets the memory an
 * ingest takes (~10× the file). A larger file is skipped with a warning.
 */
export const DEFAULT_MAX_FILE_BYTES = 10_000_000;

/** The configured source folder (`PIPELINE_SOURCE_DIR`): paths are checked to stay inside it. */
export interface PipelineSource {
  readonly root: string;
  /**
   * The real path of `path` (relative to the folder; the folder itself when empty). Throws a
   * {@link PipelineInputError} on field `path` when it is absolute, holds `..`, leads outside
   * through a symlink, or names nothing.
   */
  resolve(path?: string): Promise<string>;
  /** The documents of a resolved file or folder (depth first, by name); `skip` hears of files left out. */
  read(resolved: string, skip?: (file: SkippedFile) => void): AsyncGenerator<SourceDocument>;
}

/**
 * The source folder over the runtime's file system: the only file access of pipelines. Files
 * over `maxFileBytes` (default {@link DEFAULT_MAX_FILE_BYTES}) are skipped, not read.
 *
 * @example
 * ```ts ignore
 * const source = createPipelineSource(runtime.fs, "/srv/docs");
 * for await (const doc of source.read(await source.resolve("guides"))) console.log(doc.source);
 * ```
 */
export function createPipelineSource(
  fs: FileSystem,
  root: string,
  options: { maxFileBytes?: number } = {},
): PipelineSource {
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  let realRoot: Promise<string> | undefined;
  const rootPath = () => realRoot ??= fs.realPath(root);
  const invalid = (message: string) => new PipelineInputError(message, [{ field: "path", message }]);
  const inside = (real: string, base: string) =>
    real === base || real.startsWith(base.endsWith("/") ? base : `${base}/`);

  async function* walk(
    real: string,
    base: string,
    visited: Set<string>,
    skip: (file: SkippedFile) => void,
  ): AsyncGenerator<SourceDocument> {
    const relative = real === base ? "" : real.slice(base.length + 1);
    const info = await fs.info(real);
    if (info?.kind === "directory") {
      if (visited.has(real)) return; // a symlink loop
      visited.add(real);
      const entries = (await fs.readDir(real)).sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
      for (const entry of entries) {
        const shown = relative ? `${relative}/${entry.name}` : entry.name;
        if (entry.name.startsWith(".")) {
          skip({ path: shown, reason: entry.kind === "directory" ? "a dot-folder (hidden)" : "a dot-file (hidden)" });
          continue;
        }
        let target = joinPath(real, entry.name);
        if (entry.kind === "symlink") {
          const resolved = await fs.realPath(target).catch(() => undefined);
          if (!resolved) {
            skip({ path: shown, reason: "a symlink to nothing" });
            continue;
          }
          if (!inside(resolved, base)) {
            skip({ path: shown, reason: "a symlink leading outside PIPELINE_SOURCE_DIR" });
            continue;
          }
          target = resolved;
        } else if (entry.kind !== "directory" && entry.kind !== "file") continue;
        yield* walk(target, base, visited, skip);
      }
      return;
    }
    if (info?.kind !== "file") return;
    const extension = SOURCE_EXTENSIONS.find((e) => relative.toLowerCase().endsWith(e));
    if (!extension) return skip({ path: relative, reason: `not one of ${SOURCE_EXTENSIONS.join(", ")}` });
    if (info.size > maxFileBytes) {
      const reason = `${info.size} bytes, over PIPELINE_MAX_FILE_BYTES (${maxFileBytes}); split it into smaller ` +
        "files or raise the limit";
      return skip({ path: relative, reason });
    }
    const text = await fs.readTextFile(real);
    const name = relative.split("/").pop()!.slice(0, -extension.length);
    if (extension === ".json") {
      yield* fromJson(text, relative, skip);
      return;
    }
    const heading = extension === ".md" ? /^#\s+(.+)$/m.exec(text)?.[1]?.trim() : undefined;
    yield { title: heading || name, source: relative, content: text };
  }

  return {
    root,
    async resolve(path = "") {
      if (path.startsWith("/") || path.startsWith("\\") || /^[A-Za-z]:/.test(path)) {
        throw invalid(`path '${path}' is absolute; give a path relative to PIPELINE_SOURCE_DIR`);
      }
      if (path.split(/[/\\]/).includes("..")) {
        throw invalid(`path '${path}' leads outside PIPELINE_SOURCE_DIR through '..'; give a path inside it`);
      }
      const base = await rootPath();
      const real = await fs.realPath(path === "" ? base : joinPath(base, path)).catch(() => undefined);
      if (real === undefined) throw invalid(`path '${path}' names nothing in PIPELINE_SOURCE_DIR; check the name`);
      if (!inside(real, base)) {
        throw invalid(`path '${path}' leads outside PIPELINE_SOURCE_DIR through a symlink; give a path inside it`);
      }
      return real;
    },
    async *read(resolved, skip = () => {}) {
      yield* walk(resolved, await rootPath(), new Set(), skip);
    },
  };
}

/** A JSON file holds one `{title, content, source?}` object or an array of them. */
function* fromJson(text: string, path: string, skip: (file: SkippedFile) => void): Generator<SourceDocument> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return skip({ path, reason: `not valid JSON (${(error as Error).message})` });
  }
  const list = Array.isArray(parsed) ? parsed : [parsed];
  for (const [i, item] of list.entries()) {
    const where = Array.isArray(parsed) ? `${path}#${i}` : path;
    const { title, content, source } = (item ?? {}) as Record<string, unknown>;
    if (typeof title !== "string" || !title.trim() || typeof content !== "string" || !content.trim()) {
      skip({ path: where, reason: "needs a non-empty `title` and `content`" });
      continue;
    }
    yield { title, content, source: typeof source === "string" && source ? source : where };
  }
}
