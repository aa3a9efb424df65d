import { formatSize } from "../../../../lib/output/mod.ts";
import { basename, dirname, joinPath } from "../../../../lib/runtime/mod.ts";
import { type OptimizeAction, optimizePackageFile, type OptimizeStats } from "../../../../lib/support_package/mod.ts";
import type { Factory } from "../../../factory.ts";
import { writeResult } from "../../../framework/output.ts";
import { type Progress, progressLine } from "../../../framework/progress.ts";
import type { OutputTarget } from "../../../framework/spec.ts";
import { statusLine } from "../../../framework/status_line.ts";
import { preflight, resultAsData } from "./common.ts";

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

/** `support-package optimize <file>`: the pre-flight checks, then `optimizePackageFile`, its progress on stderr. */
export async function optimizeFile(
  f: Factory,
  source: string,
  options: { logLines: number; verbose: boolean; skipChecks: boolean; yes: boolean },
  output: OutputTarget,
): Promise<void> {
  const startedAt = new Date(f.ctx.now());
  const from = f.resolvePath(source);
  const to = output.file === undefined ? optimizedName(from) : f.resolvePath(output.file);
  const asData = resultAsData(f, output);
  if (!options.skipChecks) await preflight(f, to, options.yes);
  const line = statusLine(f.ctx.stderr);
  let progress: Progress | undefined;
  const say = (text: string) => {
    line.clear();
    f.ctx.stderr.write(text);
  };
  let outcome;
  try {
    outcome = await optimizePackageFile(
      { source: from, path: to, logLines: options.logLines, startedAt },
      { fs: f.ctx.fs, gzip: f.ctx.gzip, gunzip: f.ctx.gunzip, now: f.ctx.now },
      {
        onProgress: (read, size) => {
          progress ??= progressLine({
            label: `Optimizing ${basename(from)}`,
            total: size,
            stderr: f.ctx.stderr,
            now: f.ctx.now,
            spinner: true,
            line,
          });
          progress.update(read);
        },
        onRead: () => line.clear(),
        onOptimizeAction: options.verbose ? (action) => say(verboseAction(action)) : undefined,
      },
    );
  } finally {
    line.clear();
  }
  const { result, optimization } = outcome;
  if (asData) await writeResult(f, result, {}, { format: output.format === "yaml" ? "yaml" : "json" });
  else f.ctx.stderr.write(`Saved ${to} (${result.file_size_display})\n${optimizeSummary(optimization)}\n`);
}
