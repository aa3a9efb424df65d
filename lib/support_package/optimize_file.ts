import type { FileSystem } from "../runtime/mod.ts";
import { DamagedPackageError } from "./damaged.ts";
import { type ByteTransform, createOptimizer, type OptimizeAction, type OptimizeStats } from "./optimize.ts";
import { type PackageResult, packageResult } from "./result.ts";

/** A package on disk to shrink, and where the smaller one goes. */
export interface OptimizeFileRequest {
  readonly source: string;
  /** Written to `<path>.partial`, then renamed. */
  readonly path: string;
  readonly logLines: number;
  /** When the command started: the result's `timestamp`; default now. */
  readonly startedAt?: Date;
}

/** The effects `optimizePackageFile` uses. */
export interface OptimizeFileDeps {
  readonly fs: Pick<FileSystem, "info" | "readStream" | "writeStream">;
  readonly gzip?: ByteTransform;
  readonly gunzip?: ByteTransform;
  /** A monotonic clock in milliseconds, for `elapsed_seconds`; default `performance.now`. */
  readonly now?: () => number;
}

/** What `optimizePackageFile` tells while it runs; every callback is optional. */
export interface OptimizeFileEvents {
  /** Bytes of the source read so far, of its size when known. */
  readonly onProgress?: (read: number, size: number | undefined) => void;
  /** The source has been read to its end. */
  readonly onRead?: (read: number) => void;
  /** Each entry cut, removed, linked or rejected, in archive order. */
  readonly onOptimizeAction?: (action: OptimizeAction) => void;
}

/** The result of `optimize <file>`: the specification's result with the source's path. */
export type OptimizeFileResult = PackageResult & { readonly source_path: string };

/**
 * Shrinks a support package already on disk with the same transform `--optimize` applies while
 * downloading; a damaged package is a `DamagedPackageError` naming the source, and leaves no
 * file behind.
 *
 * @example
 * ```ts
 * import { optimizePackageFile } from "./optimize_file.ts";
 * import type { FileSystem } from "../runtime/mod.ts";
 * declare const fs: FileSystem;
 * const { result, optimization } = await optimizePackageFile(
 *   { source: "/tmp/pkg.tar.gz", path: "/tmp/pkg-optimized.tar.gz", logLines: 1000 },
 *   { fs },
 * );
 * console.log(result.file_size_display, optimization.reductionPercent);
 * ```
 */
export async function optimizePackageFile(
  request: OptimizeFileRequest,
  deps: OptimizeFileDeps,
  events: OptimizeFileEvents = {},
): Promise<{ result: OptimizeFileResult; optimization: OptimizeStats }> {
  const now = deps.now ?? (() => performance.now());
  const started = now();
  const startedAt = request.startedAt ?? new Date();
  const size = (await deps.fs.info(request.source))?.size;
  const optimizer = createOptimizer({
    logLines: request.logLines,
    gzip: deps.gzip,
    gunzip: deps.gunzip,
    onAction: events.onOptimizeAction,
  });
  let read = 0;
  const input = (await deps.fs.readStream(request.source)).pipeThrough(
    new TransformStream<Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>>({
      transform(chunk, controller) {
        read += chunk.length;
        events.onProgress?.(read, size);
        controller.enqueue(chunk);
      },
      flush: () => events.onRead?.(read),
    }),
  );
  let written: number;
  try {
    written = await deps.fs.writeStream(request.path, input.pipeThrough(optimizer));
  } catch (error) {
    if (!(error instanceof DamagedPackageError)) throw error;
    throw new DamagedPackageError(error.problem, { subject: request.source, cause: error.cause });
  }
  const optimization = await optimizer.stats;
  const result = {
    source_path: request.source,
    ...packageResult({
      startedAt,
      finishedMs: startedAt.getTime() + (now() - started),
      filePath: request.path,
      fileSize: written,
      message: `Optimized package saved to ${request.path}`,
      optimization,
    }),
  };
  return { result, optimization };
}
