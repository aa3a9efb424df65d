import { formatSize } from "../../../lib/output/mod.ts";
import { basename, dirname, joinPath } from "../../../lib/runtime/mod.ts";
import {
  createOptimizer,
  type OptimizeAction,
  type OptimizeStats,
  packageResult,
} from "../../../lib/support_package/mod.ts";
import type { Factory } from "../../factory.ts";
import { writeResult } from "../../framework/output.ts";
import { withProgress } from "../../framework/progress.ts";
import type { OutputTarget } from "../../framework/spec.ts";
import { preflight, resultAsData } from "./support_package_common.ts";

/** One line of `--optimize-verbose`. */
export function verboseAction(action: OptimizeAction): string {
  return `  ${action.action.padEnd(9)} ${action.name}: ${action.detail}\n`;
}

/** The one-line summary of an optimization. */
export function optimizeSummary(stats: OptimizeStats): string {
  return `Optimized: ${formatSize(stats.bytesBefore)} → ${formatSize(stats.bytesAfter)} ` +
    `(${stats.reductionPercent}% smaller); files processed ${stats.filesProcessed}, ` +
    `truncated ${stats.filesTruncated}, removed ${stats.filesRemoved}` +
    (stats.entriesRejected > 0 ? `, unsafe entries rejected ${stats.entriesRejected}` : "");
}

/** `pkg.tar.gz` → `pkg-optimized.tar.gz`, beside it. */
export function optimizedName(source: string): string {
  const name = basename(source);
  const stem = name.replace(/(\.tar\.gz|\.tgz|\.gz)$/i, "");
  return joinPath(dirname(source), `${stem}-optimized.tar.gz`);
}

/** `support-package optimize <file>`: the same transform on a package already on disk. */
export async function optimizeFile(
  f: Factory,
  source: string,
  options: { logLines: number; verbose: boolean; skipChecks: boolean; yes: boolean },
  output: OutputTarget,
): Promise<void> {
  const startedAt = new Date();
  const started = f.ctx.now();
  const from = f.resolvePath(source);
  const to = output.file === undefined ? optimizedName(from) : f.resolvePath(output.file);
  const asData = resultAsData(f, output);
  const info = await f.ctx.fs.info(from);
  if (!options.skipChecks) await preflight(f, to, options.yes);
  const optimizer = createOptimizer({
    logLines: options.logLines,
    gzip: f.ctx.gzip,
    gunzip: f.ctx.gunzip,
    onAction: options.verbose ? (action) => f.ctx.stderr.write(verboseAction(action)) : undefined,
  });
  const input = withProgress(await f.ctx.fs.readStream(from), {
    label: `Optimizing ${basename(from)}`,
    total: info?.size,
    stderr: f.ctx.stderr,
    now: f.ctx.now,
    spinner: true,
  }) as ReadableStream<Uint8Array<ArrayBuffer>>;
  const size = await f.ctx.fs.writeStream(to, input.pipeThrough(optimizer));
  const stats = await optimizer.stats;
  const result = {
    source_path: from,
    ...packageResult({
      startedAt,
      finishedMs: startedAt.getTime() + (f.ctx.now() - started),
      filePath: to,
      fileSize: size,
      message: `Optimized package saved to ${to}`,
      optimization: stats,
    }),
  };
  if (asData) await writeResult(f, result, {}, { format: output.format === "yaml" ? "yaml" : "json" });
  else f.ctx.stderr.write(`Saved ${to} (${result.file_size_display})\n${optimizeSummary(stats)}\n`);
}
