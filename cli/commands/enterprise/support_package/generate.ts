import type { EnterpriseClient, PackageTarget, RouteFamily } from "../../../../lib/enterprise/mod.ts";
import { StoreCtlError } from "../../../../lib/errors/mod.ts";
import { formatSize } from "../../../../lib/output/mod.ts";
import { basename, joinPath } from "../../../../lib/runtime/mod.ts";
import {
  defaultPackageName,
  type GenerateEvents,
  type GenerateOutcome,
  generateSupportPackage,
  type OptimizeStats,
  type PackageResult,
  packageResult,
  packageType,
  type UploadDestination,
} from "../../../../lib/support_package/mod.ts";
import type { Factory } from "../../../factory.ts";
import { writeResult } from "../../../framework/output.ts";
import { type Progress, progressLine } from "../../../framework/progress.ts";
import type { OutputTarget } from "../../../framework/spec.ts";
import { type StatusLine, statusLine } from "../../../framework/status_line.ts";
import { type Spinner, spinner } from "../../../framework/waiting.ts";
import { type GenerateOptions, preflight, resultAsData } from "./common.ts";

import { optimizeSummary, verboseAction } from "./optimize.ts";
import { requireFilesKey, uploadTarget } from "./upload.ts";
import { type JobReporter, jobReporter, startInBackground } from "./jobs.ts";

/** Where people upload packages by hand (rule 5); `STORE_SUPPORT_UPLOAD_URL` changes it. */
export const DEFAULT_SUPPORT_UPLOAD_URL = "https://support.example.com/upload";

/** Where the package goes: `-o <path>`, a directory's default name, or the default name here. */
async function targetPath(f: Factory, target: PackageTarget, output: OutputTarget, startedAt: Date): Promise<string> {
  const name = defaultPackageName(target, startedAt);
  if (output.file === undefined) return f.resolvePath(name);
  const path = f.resolvePath(output.file);
  return (await f.ctx.fs.info(path))?.kind === "directory" ? joinPath(path, name) : path;
}

/** The format of the result on stdout, when it goes there as data. */
const dataFormat = (output: OutputTarget) => ({ format: output.format === "yaml" ? "yaml" as const : "json" as const });

/**
 * `support-package cluster|database|node`: the questions (pre-flight checks) and the upload key
 * first, then the generation (`generateSupportPackage` in lib/support_package), bounded as a
 * whole by `--wait-timeout`, its steps shown on stderr; then the result and the next steps. A
 * run refused before it starts records no job.
 */
export async function generatePackage(
  f: Factory,
  target: PackageTarget,
  options: GenerateOptions,
  output: OutputTarget,
): Promise<void> {
  const startedAt = new Date(f.ctx.now());
  const asData = resultAsData(f, output);
  const path = await targetPath(f, target, output, startedAt);
  // Nothing is recorded until the run starts, or fails as a background run (whose job exists).
  const job = jobReporter(f, {
    id: options.jobId,
    packageType: packageType(target),
    filePath: options.noSave ? undefined : path,
  });
  let upload: UploadDestination | undefined;
  let client: EnterpriseClient;
  try {
    if (options.upload) {
      const key = await requireFilesKey(f);
      upload = { ...uploadTarget(f.ctx.env), key: key.key, settings: await f.httpSettings() };
    }
    if (options.noSave) {
      f.ctx.stderr.write(
        "--no-save: the package goes straight to the upload; no local copy is kept, even if it fails\n",
      );
    } else if (!options.skipChecks) await preflight(f, path, options.yes);
    if (options.noWait && options.jobId === undefined) return await startInBackground(f, target, options, path, asData);
    client = await f.enterprise();
  } catch (error) {
    // Refused before it started (a "no", a missing --yes, key or profile, a directory that takes no file): no
    // job, unless this is the background run of one.
    if (options.jobId !== undefined) await job.failed(error);
    if (asData) {
      const result = packageResult({
        packageType: packageType(target),
        startedAt,
        finishedMs: f.ctx.now(),
        message: "Support package generation failed",
        error: error instanceof Error ? error.message : String(error),
      });
      await writeResult(f, result, {}, dataFormat(output));
    }
    throw error;
  }
  const outcome = await generate(f, client, target, options, { path, upload, startedAt, job });
  if (!outcome.ok) {
    await job.failed(outcome.error);
    if (asData) await writeResult(f, outcome.result, {}, dataFormat(output));
    throw outcome.error;
  }
  await job.done(outcome.result);
  if (asData) await writeResult(f, outcome.result, {}, dataFormat(output));
  else f.ctx.stderr.write(summary(outcome.result, outcome.optimization));
  f.ctx.stderr.write(nextSteps(f, outcome.result));
}

/** Runs the workflow within `--wait-timeout`, showing its steps on stderr and reporting to the job. */
async function generate(
  f: Factory,
  client: EnterpriseClient,
  target: PackageTarget,
  options: GenerateOptions,
  run: { path: string; upload?: UploadDestination; startedAt: Date; job: JobReporter },
): Promise<GenerateOutcome> {
  const { path, upload, startedAt, job } = run;
  const deadline = new AbortController();
  const timer = setTimeout(
    () =>
      deadline.abort(
        new StoreCtlError(
          "timeout",
          `The support package was not complete within ${options.waitTimeout} s (--wait-timeout); nothing was saved`,
          { tips: ["Give it longer with --wait-timeout <seconds>: a package of several GB can take a while"] },
        ),
      ),
    options.waitTimeout * 1000,
  );
  const line = statusLine(f.ctx.stderr);
  const shown = shownOn(f, line, basename(path), options, job);
  try {
    const family: RouteFamily | undefined = options.useNewApi ? "new" : options.useOldApi ? "old" : undefined;
    return await generateSupportPackage(
      {
        target,
        name: basename(path),
        path: options.noSave ? undefined : path,
        family,
        optimize: options.optimize ? { logLines: options.logLines } : undefined,
        upload: upload &&
          { ...upload, settings: { ...upload.settings, onRetry: clearing(line, upload.settings.onRetry) } },
        signal: AbortSignal.any([f.ctx.interrupt, deadline.signal]),
        // The first byte never gets less time than any later one.
        firstByteTimeoutMs: Math.max(options.firstByteTimeout, f.globals.timeout) * 1000,
        startedAt,
      },
      { client, fs: f.ctx.fs, gzip: f.ctx.gzip, gunzip: f.ctx.gunzip, now: f.ctx.now },
      shown.events,
    );
  } finally {
    clearTimeout(timer);
    shown.stop();
    line.clear();
  }
}

/** Calls `then` after erasing the status line, so a message never lands in the middle of it. */
function clearing<A extends unknown[]>(line: StatusLine, then?: (...args: A) => void) {
  return then && ((...args: A) => {
    line.clear();
    then(...args);
  });
}

/**
 * The workflow's steps as people see them on stderr: messages, a spinner while the cluster builds
 * the package (until its first byte), the download's progress, the upload's parts. `stop` ends
 * the spinner, if it still turns.
 */
function shownOn(
  f: Factory,
  line: StatusLine,
  name: string,
  options: GenerateOptions,
  job: JobReporter,
): { events: GenerateEvents; stop(): void } {
  const say = clearing(line, (text: string) => f.ctx.stderr.write(text))!;
  let download: Progress | undefined;
  let waiting: Spinner | undefined;
  const stop = () => {
    waiting?.stop();
    waiting = undefined;
  };
  const events: GenerateEvents = {
    onAsked: () => {
      stop();
      waiting = spinner(f.ctx, "Support package");
      waiting.state("waiting for the cluster to start sending…");
    },
    onFamily: (family, why, version) => {
      if (family === "new" && why === "version") {
        say(`The cluster runs ${version}: using the new debuginfo endpoints (7.4 and later)\n`);
      }
    },
    onFallback: (from, to) => say(`GET ${from} answered 404; trying GET ${to}\n`),
    onDownloadStart: ({ size }) => {
      download = progressLine({
        label: `Downloading ${name}`,
        total: size,
        stderr: f.ctx.stderr,
        now: f.ctx.now,
        spinner: true,
        line,
      });
    },
    onDownloadProgress: (received, size) => {
      if (received > 0) stop();
      download?.update(received);
      job.progress(received, size);
    },
    onDownloaded: () => line.clear(),
    onOptimizeAction: options.optimizeVerbose ? (action) => say(verboseAction(action)) : undefined,
    onUploadPart: (part, sent, size) =>
      line.show(`Uploading ${name}: part ${part}, ${formatSize(sent)}${size ? ` of ${formatSize(size)}` : ""}`),
    onUploadRetry: (part, attempt, error) =>
      say(`Part ${part} failed (${error.message}); sending it again (attempt ${attempt})\n`),
  };
  return { events, stop };
}

/** The result for people: what was saved and/or uploaded, where, how big, how long; the optimization. */
export function summary(result: PackageResult, stats: OptimizeStats | undefined): string {
  const what = `the ${result.package_type} support package of ${result.cluster_name ?? "the cluster"}`;
  const upload = result.upload;
  const parts = upload && `${upload.parts} part${upload.parts === 1 ? "" : "s"}`;
  const lines: string[] = [];
  if (result.file_path !== undefined) {
    lines.push(`Saved ${what} to ${result.file_path} (${result.file_size_display}) in ${result.elapsed_seconds} s`);
    if (upload) {
      lines.push(
        `Uploaded ${upload.remote_path} (${formatSize(upload.size as number)}, ${parts}) to ${upload.service}`,
      );
    }
  } else if (upload) {
    lines.push(
      `Uploaded ${what} to ${upload.service} as ${upload.remote_path} (${result.file_size_display}, ${parts}) ` +
        `in ${result.elapsed_seconds} s; no local copy kept (--no-save)`,
    );
  }
  if (stats) lines.push(optimizeSummary(stats));
  return lines.map((l) => `${l}\n`).join("");
}

/** Rule 5: what to do with the package. */
export function nextSteps(f: Factory, result: PackageResult): string {
  const url = f.ctx.env.STORE_SUPPORT_UPLOAD_URL || DEFAULT_SUPPORT_UPLOAD_URL;
  const first = result.upload
    ? `It is uploaded as ${result.upload.remote_path}; tell support at ${url}`
    : `Upload ${result.file_path} to ${url} (or run again with --upload)`;
  const last = result.file_path ? [`Delete ${result.file_path} once support has it`] : [];
  const steps = [first, "Quote your support case number with the upload", ...last];
  return `Next steps:\n${steps.map((step, i) => `  ${i + 1}. ${step}\n`).join("")}`;
}
