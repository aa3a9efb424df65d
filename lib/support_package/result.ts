import { formatSize } from "../output/mod.ts";
import type { OptimizeStats } from "./optimize.ts";

/** The specification's JSON result of a package command, snake_case as printed. */
export interface PackageResult {
  readonly success: boolean;
  /** Absent for `optimize <file>`, which generates nothing. */
  readonly package_type?: string;
  readonly file_path?: string;
  readonly file_size?: number;
  readonly file_size_display?: string;
  readonly elapsed_seconds: number;
  readonly cluster_name?: string;
  readonly cluster_version?: string;
  readonly message: string;
  /** ISO 8601 UTC, when the command started. */
  readonly timestamp: string;
  readonly error?: string;
  /** Which routes answered (`/v1/debuginfo/all`). */
  readonly endpoint?: string;
  /** With `--optimize`: sizes and counts, snake_case. */
  readonly optimization?: Readonly<Record<string, number>>;
  /** With `--upload`: where the file went. */
  readonly upload?: Readonly<Record<string, unknown>>;
}

/** What a result is built from. */
export interface ResultInput {
  readonly packageType?: string;
  readonly startedAt: Date;
  readonly finishedMs: number;
  readonly filePath?: string;
  readonly fileSize?: number;
  readonly clusterName?: string;
  readonly clusterVersion?: string;
  readonly message: string;
  readonly error?: string;
  readonly endpoint?: string;
  readonly optimization?: OptimizeStats;
  readonly upload?: Readonly<Record<string, unknown>>;
}

/**
 * The result object; `success` is false exactly when `error` is given.
 *
 * @example
 * ```ts
 * import { packageResult } from "./result.ts";
 * const startedAt = new Date();
 * packageResult({ packageType: "cluster", startedAt, finishedMs: startedAt.getTime() + 3200, message: "Saved", fileSize: 2048 });
 * // { success: true, package_type: "cluster", file_size: 2048, file_size_display: "2 KiB", elapsed_seconds: 3, … }
 * ```
 */
export function packageResult(input: ResultInput): PackageResult {
  const o = input.optimization;
  return {
    success: input.error === undefined,
    ...(input.packageType !== undefined && { package_type: input.packageType }),
    ...(input.filePath !== undefined && { file_path: input.filePath }),
    ...(input.fileSize !== undefined && { file_size: input.fileSize, file_size_display: formatSize(input.fileSize) }),
    elapsed_seconds: Math.max(0, Math.round((input.finishedMs - input.startedAt.getTime()) / 1000)),
    ...(input.clusterName !== undefined && { cluster_name: input.clusterName }),
    ...(input.clusterVersion !== undefined && { cluster_version: input.clusterVersion }),
    message: input.message,
    timestamp: input.startedAt.toISOString().replace(/\.\d+Z$/, "Z"),
    ...(input.error !== undefined && { error: input.error }),
    ...(input.endpoint !== undefined && { endpoint: input.endpoint }),
    ...(o && {
      optimization: {
        size_before: o.bytesBefore,
        size_after: o.bytesAfter,
        reduction_percent: o.reductionPercent,
        files_processed: o.filesProcessed,
        files_truncated: o.filesTruncated,
        files_removed: o.filesRemoved,
        entries_rejected: o.entriesRejected,
      },
    }),
    ...(input.upload && { upload: input.upload }),
  };
}
