/**
 * Support packages: default names, the JSON result, and shrinking a `tar.gz` as a stream
 * (`createOptimizer`) with the rules it applies to each entry's name.
 *
 * @example
 * ```ts
 * import { createOptimizer } from "./mod.ts";
 * const optimizer = createOptimizer({ logLines: 1000 });
 * const shrunk = new Blob([]).stream().pipeThrough(optimizer);
 * await shrunk.pipeTo(new WritableStream());
 * const { reductionPercent } = await optimizer.stats;
 * ```
 *
 * @module
 */
export {
  type ByteTransform,
  createOptimizer,
  DEDUP_MAX_BYTES,
  DEFAULT_LOG_LINES,
  type OptimizeAction,
  type OptimizeOptions,
  type Optimizer,
  type OptimizeStats,
} from "./optimize.ts";
export { LogTail, MAX_TAIL_BYTES, type TailResult } from "./log_tail.ts";
export { currentLogOf, isLogFile, isNestedArchive, normalizeName, unsafePathReason } from "./rules.ts";
export { defaultPackageName, packageTimestamp, packageType } from "./naming.ts";
export { type PackageResult, packageResult, type ResultInput } from "./result.ts";
export {
  DEFAULT_FILES_API_URL,
  DEFAULT_FILES_FOLDER,
  DEFAULT_PART_BYTES,
  type UploadOptions,
  uploadPackage,
  type UploadResult,
} from "./upload.ts";
export { type JobRecord, jobsFile, type JobStore, jobStore, newJobId } from "./jobs.ts";
