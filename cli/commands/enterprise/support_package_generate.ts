import {
  type Cluster,
  downloadDebuginfo,
  type Node,
  type PackageTarget,
  type RouteFamily,
  servesNewRoutes,
} from "../../../lib/enterprise/mod.ts";
import { StoreCtlError } from "../../../lib/errors/mod.ts";
import { formatSize } from "../../../lib/output/mod.ts";
import { basename, joinPath } from "../../../lib/runtime/mod.ts";
import {
  createOptimizer,
  defaultPackageName,
  type OptimizeStats,
  type PackageResult,
  packageResult,
  packageType,
} from "../../../lib/support_package/mod.ts";
import type { Factory } from "../../factory.ts";
import { writeResult } from "../../framework/output.ts";
import { withProgress } from "../../framework/progress.ts";
import type { OutputTarget } from "../../framework/spec.ts";
import { preflight, resultAsData } from "./support_package_common.ts";
import { optimizeSummary, verboseAction } from "./support_package_optimize.ts";
import { requireFilesKey, uploadBody } from "./support_package_upload.ts";
import { jobReporter, startInBackground } from "./support_package_jobs.ts";

/** The options of `support-package cluster|database|node`. */
export interface GenerateOptions {
  readonly skipChecks: boolean;
  readonly useNewApi: boolean;
  readonly useOldApi: boolean;
  readonly optimize: boolean;
  readonly optimizeVerbose: boolean;
  readonly logLines: number;
  readonly waitTimeout: number;
  readonly yes: boolean;
  readonly upload: boolean;
  readonly noSave: boolean;
  /** Start in the background and return at once. */
  readonly noWait: boolean;
  /** Set in the background process: the job to report to. */
  readonly jobId?: string;
}

/** Where people upload packages by hand (rule 5); `STORE_SUPPORT_UPLOAD_URL` changes it. */
export const DEFAULT_SUPPORT_UPLOAD_URL = "https://support.example.com/upload";

/** Where the package goes: `-o <path>`, a directory's default name, or the default name here. */
async function targetPath(f: Factory, target: PackageTarget, output: OutputTarget, startedAt: Date): Promise<string> {
  const name = defaultPackageName(target, startedAt);
  if (output.file === undefined) return f.resolvePath(name);
  const path = f.resolvePath(output.file);
  return (await f.ctx.fs.info(path))?.kind === "directory" ? joinPath(path, name) : path;
}

/**
 * Generates a package: pre-flight checks, the cluster's name and version, the download from the
 * chosen route family (falling back once on a 404) streamed through the optimizer when asked,
 * into `<name>.partial` and then renamed. The whole operation is bounded by `--wait-timeout`.
 */
export async function generatePackage(
  f: Factory,
  target: PackageTarget,
  options: GenerateOptions,
  output: OutputTarget,
): Promise<void> {
  const startedAt = new Date();
  const started = f.ctx.now();
  const finishedMs = () => startedAt.getTime() + (f.ctx.now() - started);
  const asData = resultAsData(f, output);
  const path = await targetPath(f, target, output, startedAt);
  const about: { clusterName?: string; clusterVersion?: string; endpoint?: string } = {};
  const deadline = new AbortController();
  const timeout = new StoreCtlError(
    "timeout",
    `The support package was not complete within ${options.waitTimeout} s (--wait-timeout); nothing was saved`,
    { tips: ["Give it longer with --wait-timeout <seconds>: a package of several GB can take a while"] },
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const upload: { result?: Record<string, unknown> } = {};
  let saved: number | undefined;
  const job = jobReporter(f, {
    id: options.jobId,
    packageType: packageType(target),
    filePath: options.noSave ? undefined : path,
  });
  try {
    const key = options.upload ? await requireFilesKey(f) : undefined;
    if (options.noSave) {
      f.ctx.stderr.write(
        "--no-save: the package goes straight to the upload; no local copy is kept, even if it fails\n",
      );
    } else if (!options.skipChecks) await preflight(f, path, options.yes);
    if (options.noWait && options.jobId === undefined) return await startInBackground(f, target, options, path, asData);
    timer = setTimeout(() => deadline.abort(timeout), options.waitTimeout * 1000);
    const signal = AbortSignal.any([f.ctx.interrupt, deadline.signal]);
    const client = await f.enterprise();
    const [cluster, nodes] = await Promise.all([
      client.get<Cluster>("/v1/cluster", { signal }),
      client.get<Node[]>("/v1/nodes", { signal }),
    ]);
    about.clusterName = cluster.name;
    about.clusterVersion = lowestVersion(nodes);
    signal.throwIfAborted();
    const family = chooseFamily(f, options, about.clusterVersion);
    const download = await downloadDebuginfo(client, target, {
      family,
      signal,
      onFallback: (from, to) => f.ctx.stderr.write(`GET ${from} answered 404; trying GET ${to}\n`),
    });
    signal.throwIfAborted();
    about.endpoint = download.path;
    let received = 0;
    const counted = download.body.pipeThrough(stopOn(signal)).pipeThrough(
      new TransformStream<Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>>({
        transform(chunk, controller) {
          received += chunk.length;
          job.progress(received, download.length);
          controller.enqueue(chunk);
        },
      }),
    );
    const body = withProgress(counted, {
      label: `Downloading ${basename(path)}`,
      total: download.length,
      stderr: f.ctx.stderr,
      now: f.ctx.now,
      spinner: true,
    });
    let stats: Promise<OptimizeStats> | undefined;
    let stream = body as ReadableStream<Uint8Array<ArrayBuffer>>;
    if (options.optimize) {
      const optimizer = createOptimizer({
        logLines: options.logLines,
        gzip: f.ctx.gzip,
        gunzip: f.ctx.gunzip,
        onAction: options.optimizeVerbose ? (action) => f.ctx.stderr.write(verboseAction(action)) : undefined,
      });
      stream = stream.pipeThrough(optimizer);
      stats = optimizer.stats;
    }
    let size: number;
    if (options.noSave) {
      upload.result = await uploadBody(f, key!, stream, basename(path), { signal });
      size = upload.result.size as number;
    } else {
      size = saved = await f.ctx.fs.writeStream(path, stream);
      if (key) {
        const file = await f.ctx.fs.readStream(path);
        upload.result = await uploadBody(f, key, file.pipeThrough(stopOn(signal)), basename(path), { size, signal });
      }
    }
    const optimization = await stats;
    const result = packageResult({
      packageType: packageType(target),
      startedAt,
      finishedMs: finishedMs(),
      filePath: options.noSave ? undefined : path,
      fileSize: size,
      ...about,
      message: upload.result
        ? `Support package uploaded to ${upload.result.remote_path}${options.noSave ? "" : `, and saved to ${path}`}`
        : `Support package saved to ${path}`,
      optimization,
      upload: upload.result,
    });
    await job.done(result);
    await report(f, result, asData, optimization);
  } catch (caught) {
    let error = deadline.signal.aborted && !f.ctx.interrupt.aborted ? timeout : caught;
    if (saved !== undefined && error instanceof StoreCtlError) {
      // The download worked; only the upload failed: say where the package is.
      error = new StoreCtlError(error.code, `The upload failed: ${error.message}`, {
        status: error.status,
        cause: error,
        tips: [...error.tips, `The package is saved at ${path}; upload it by hand (see the next steps) or run again`],
      });
    }
    await job.failed(error);
    if (asData) {
      const result = packageResult({
        packageType: packageType(target),
        startedAt,
        finishedMs: finishedMs(),
        ...(saved !== undefined && { filePath: path, fileSize: saved }),
        ...about,
        message: "Support package generation failed",
        error: error instanceof Error ? error.message : String(error),
      });
      await writeResult(f, result, {}, { format: output.format === "yaml" ? "yaml" : "json" });
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Fails the stream as soon as `signal` aborts, whatever the transport does with it. */
function stopOn(signal: AbortSignal): TransformStream<Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>> {
  let stop = () => {};
  return new TransformStream({
    start(controller) {
      stop = () => controller.error(signal.reason);
      signal.addEventListener("abort", stop, { once: true });
    },
    transform(chunk, controller) {
      signal.throwIfAborted();
      controller.enqueue(chunk);
    },
    flush: () => signal.removeEventListener("abort", stop),
  });
}

/** The family to ask first: forced by a flag, else the new one from 7.4 (saying so), else the old. */
function chooseFamily(f: Factory, options: GenerateOptions, version: string | undefined): RouteFamily {
  if (options.useNewApi) return "new";
  if (options.useOldApi) return "old";
  if (servesNewRoutes(version)) {
    f.ctx.stderr.write(`The cluster runs ${version}: using the new debuginfo endpoints (7.4 and later)\n`);
    return "new";
  }
  return "old";
}

/** The lowest `software_version` of the nodes: a cluster mid-upgrade serves what its oldest node does. */
function lowestVersion(nodes: readonly Node[]): string | undefined {
  const versions = nodes.map((n) => n.software_version).filter((v): v is string => typeof v === "string");
  const key = (v: string) => v.split(".").map((p) => (parseInt(p, 10) || 0).toString().padStart(6, "0")).join(".");
  return versions.sort((a, b) => key(a).localeCompare(key(b)))[0];
}

/** The result on stdout as data, or as lines for people on stderr, then the next steps. */
async function report(f: Factory, result: PackageResult, asData: boolean, stats: OptimizeStats | undefined) {
  if (asData) await writeResult(f, result, {}, { format: f.globals.output === "yaml" ? "yaml" : "json" });
  else {
    const where = result.file_path ? `to ${result.file_path}` : "(not saved: --no-save)";
    f.ctx.stderr.write(
      `Saved the ${result.package_type} support package of ${result.cluster_name ?? "the cluster"} ` +
        `${where} (${result.file_size_display}) in ${result.elapsed_seconds} s\n`,
    );
    if (result.upload) {
      f.ctx.stderr.write(
        `Uploaded ${result.upload.remote_path} (${formatSize(result.upload.size as number)}, ` +
          `${result.upload.parts} part${result.upload.parts === 1 ? "" : "s"}) ` +
          `to ${result.upload.service}\n`,
      );
    }
    if (stats) f.ctx.stderr.write(`${optimizeSummary(stats)}\n`);
  }
  f.ctx.stderr.write(nextSteps(f, result));
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
