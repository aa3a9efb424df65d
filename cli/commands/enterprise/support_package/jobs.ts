import type { PackageTarget } from "../../../../lib/enterprise/mod.ts";
import { StoreCtlError } from "../../../../lib/errors/mod.ts";
import {
  type JobRecord,
  jobsFile,
  type JobStore,
  jobStore,
  newJobId,
  type PackageResult,
} from "../../../../lib/support_package/mod.ts";
import type { Factory } from "../../../factory.ts";
import { writeResult } from "../../../framework/output.ts";
import { formatSize } from "../../../../lib/output/mod.ts";
import type { Column } from "../../../framework/spec.ts";
import type { GenerateOptions } from "./common.ts";

/** Columns of `status` and `list`. */
export const JOB_COLUMNS: readonly Column[] = [
  { header: "TASK ID", value: "task_id" },
  { header: "STATUS", value: "status" },
  { header: "PROGRESS", value: (row) => (typeof row.progress === "number" ? `${row.progress}%` : "-") },
  { header: "TYPE", value: "package_type" },
  { header: "FILE", value: "file_path", role: "text" },
  { header: "STARTED", value: "started" },
  { header: "MESSAGE", value: "message", role: "text" },
];

/** A background job with no update for this long has most likely died. */
const STALE_MS = 60_000;
/** Progress is written at most this often. */
const PROGRESS_EVERY_MS = 1000;

export const statusCommand = (id: string) => `ctl enterprise support-package status ${id}`;

/** This machine's job store. */
export function jobs(f: Factory): JobStore {
  return jobStore(f.ctx.fs, jobsFile(f.ctx.env, f.ctx.home));
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");

/** The command line of the background process: the same package, checks done, answers given. */
function backgroundArgs(f: Factory, target: PackageTarget, o: GenerateOptions, path: string, id: string): string[] {
  const g = f.globals;
  const kind = target.kind === "nodes" ? "node" : target.kind;
  const uid = target.kind === "database" || target.kind === "node" ? [String(target.uid)] : [];
  return [
    "enterprise",
    "support-package",
    kind,
    ...uid,
    "--file",
    path,
    "--job-id",
    id,
    "--yes",
    "--skip-checks",
    "--wait-timeout",
    String(o.waitTimeout),
    "--first-byte-timeout",
    String(o.firstByteTimeout),
    "--log-lines",
    String(o.logLines),
    ...(o.optimize ? ["--optimize"] : []),
    ...(o.useNewApi ? ["--use-new-api"] : []),
    ...(o.useOldApi ? ["--use-old-api"] : []),
    ...(o.upload ? ["--upload"] : []),
    ...(o.noSave ? ["--no-save"] : []),
    ...(g.profile ? ["--profile", g.profile] : []),
    ...(g.configFile ? ["--config-file", f.resolvePath(g.configFile)] : []),
    ...(g.insecure ? ["--insecure"] : []),
    ...(g.caCert ? ["--ca-cert", f.resolvePath(g.caCert)] : []),
    "--timeout",
    String(g.timeout),
    "--retries",
    String(g.retries),
  ];
}

/**
 * `--no-wait`: records the job, starts ctl again in the background on the same package (checks
 * done here, so questions are asked here), and prints the task id and the `status` command.
 */
export async function startInBackground(
  f: Factory,
  target: PackageTarget,
  options: GenerateOptions,
  path: string,
  asData: boolean,
): Promise<void> {
  if (!f.ctx.launchDetached) {
    throw new StoreCtlError("usage", "--no-wait is not available here: this ctl cannot start itself in the background");
  }
  const now = f.ctx.now();
  const id = newJobId(new Date(now));
  const store = jobs(f);
  const record: JobRecord = {
    task_id: id,
    status: "in_progress",
    progress: 0,
    message: "Starting in the background",
    package_type: target.kind,
    ...(!options.noSave && { file_path: path }),
    started: iso(now),
    updated: iso(now),
  };
  await store.put(record);
  const pid = await f.ctx.launchDetached(backgroundArgs(f, target, options, path, id));
  // The background run may have written its job already (a quick failure): keep what it wrote.
  await store.update(id, { pid });
  if (asData) {
    await writeResult(f, { task_id: id, status: "in_progress", status_command: statusCommand(id) }, {}, {
      format: f.globals.output === "yaml" ? "yaml" : "json",
    });
  } else f.ctx.stdout.write(`${id}\n`);
  f.ctx.stderr.write(
    `Support package ${id} is being generated in the background; follow it with: ${statusCommand(id)}\n`,
  );
}

/** What a run reports to its job record (every run has one, so `list` knows every package). */
export interface JobReporter {
  /** Bytes received so far, of `total` when known; written at most once a second. */
  progress(bytes: number, total: number | undefined): void;
  done(result: PackageResult): Promise<void>;
  failed(error: unknown): Promise<void>;
}

/** The reporter of a run: job `id` when given (background), else a new one. Never fails the run. */
export function jobReporter(f: Factory, base: { id?: string; packageType: string; filePath?: string }): JobReporter {
  const store = jobs(f);
  const started = f.ctx.now();
  const id = base.id ?? newJobId(new Date(started));
  let last = 0;
  let writing: Promise<void> = Promise.resolve();
  const put = (change: Partial<JobRecord>) => {
    writing = writing.then(async () => {
      const current = await store.get(id);
      await store.put({
        task_id: id,
        status: "in_progress",
        progress: null,
        message: "",
        package_type: base.packageType,
        ...(base.filePath !== undefined && { file_path: base.filePath }),
        started: iso(started),
        ...current,
        ...change,
        updated: iso(f.ctx.now()),
      } as JobRecord);
    }).catch((error) => f.logger.log("info", "support-package", `cannot record job ${id}: ${error.message}`));
    return writing;
  };
  return {
    progress(bytes, total) {
      if (base.id === undefined || f.ctx.now() - last < PROGRESS_EVERY_MS) return;
      last = f.ctx.now();
      const progress = total ? Math.min(99, Math.floor((bytes / total) * 100)) : null;
      void put({ progress, message: downloadMessage(bytes, total) });
    },
    done: (result) => put({ status: "completed", progress: 100, message: result.message, result }),
    failed: (error) =>
      put({ status: "failed", message: error instanceof Error ? error.message : String(error), progress: null }),
  };
}

/** A background job's message while it downloads: `Downloading: 12.5 MiB of 40 MiB`. */
export function downloadMessage(bytes: number, total: number | undefined): string {
  return `Downloading: ${formatSize(bytes)}${total ? ` of ${formatSize(total)}` : ""}`;
}

/** A job as `status` shows it: a background job silent for a minute is said to be stale. */
export function describe(job: JobRecord, now: number): JobRecord {
  if (job.status !== "in_progress" || now - Date.parse(job.updated) < STALE_MS) return job;
  const silent = Math.round((now - Date.parse(job.updated)) / 1000);
  return { ...job, message: `${job.message} (no news for ${silent} s: the background process may have ended)` };
}
