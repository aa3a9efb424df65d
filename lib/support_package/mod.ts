/**
 * Support packages: generating one (`generateSupportPackage`: download, optimize, save, upload,
 * telling each step through callbacks and returning the specification's result), shrinking one on disk
 * (`optimizePackageFile`) or as a stream (`createOptimizer`, with the rules it applies to each
 * entry's name; a damaged package fails with `DamagedPackageError`), default names, the upload in
 * parts, and this machine's job records.
 *
 * @example
 * ```ts
 * import { createOptimizer, generateSupportPackage } from "./mod.ts";
 * import type { EnterpriseClient } from "../enterprise/mod.ts";
 * import type { FileSystem } from "../runtime/mod.ts";
 * declare const client: EnterpriseClient, fs: FileSystem;
 * const outcome = await generateSupportPackage(
 *   { target: { kind: "nodes" }, name: "nodes.tar.gz", path: "/tmp/nodes.tar.gz" },
 *   { client, fs },
 *   { onFallback: (from, to) => console.error(`${from} answered 404; trying ${to}`) },
 * );
 * if (!outcome.ok) throw outcome.error;
 *
 * const optimizer = createOptimizer({ logLines: 1000 });
 * await new Blob([]).stream().pipeThrough(optimizer).pipeTo(new WritableStream());
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
export {
  type GenerateDeps,
  type GenerateEvents,
  type GenerateOutcome,
  type GenerateRequest,
  generateSupportPackage,
  lowestVersion,
  type UploadDestination,
} from "./generate.ts";
export {
  type OptimizeFileDeps,
  type OptimizeFileEvents,
  type OptimizeFileRequest,
  type OptimizeFileResult,
  optimizePackageFile,
} from "./optimize_file.ts";
export { LogTail, MAX_TAIL_BYTES, TAIL_PIECE_BYTES, type TailResult } from "./log_tail.ts";
export {
  currentLogOf,
  isLogFile,
  isNestedArchive,
  linkOnPath,
  MAX_NAME_BYTES,
  normalizeName,
  pathKey,
  unsafePathReason,
  utf8Length,
} from "./rules.ts";
export { guardTarMetadata, MAX_META_BYTES, OVERSIZED_META_KEY } from "./tar_meta_guard.ts";
export { convertingErrors, DamagedPackageError, damageProblem } from "./damaged.ts";
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
