import { formatSize } from "../../../../lib/output/mod.ts";
import { dirname } from "../../../../lib/runtime/mod.ts";
import type { Factory } from "../../../factory.ts";
import { confirmOrStop } from "../../../framework/confirm.ts";
import type { OutputTarget } from "../../../framework/spec.ts";

/**
 * Below this much free space the user is asked first: 1 GiB, since ctl counts sizes in powers of
 * 1024; it is a little more than the specification's 1 GB, so whenever the specification would ask, this asks.
 */
export const LOW_SPACE_BYTES = 1024 ** 3;

/**
 * The spec's pre-flight checks, before any request: the directory must take a new file (tried
 * for real: an error, exit 13), an existing target is replaced only when the user agrees, and
 * less than 1 GiB free asks whether to go on. Without a terminal, `--yes` answers the questions;
 * without it they fail with exit 2 naming it.
 */
export async function preflight(f: Factory, path: string, yes: boolean): Promise<void> {
  const dir = dirname(path);
  await f.ctx.fs.checkWritableDirectory(dir);
  const existing = await f.ctx.fs.info(path);
  if (existing) await confirmOrStop(f.ctx, `${path} exists (${formatSize(existing.size)}). Overwrite it?`, yes);
  const free = await f.ctx.fs.freeSpace(dir);
  if (free === undefined) {
    f.logger.log("info", "support-package", `free space of ${dir} unknown; not checked`);
  } else if (free < LOW_SPACE_BYTES) {
    f.warn(`only ${formatSize(free)} free in ${dir}; a support package is typically 500 MiB to 2 GiB or more`);
    await confirmOrStop(f.ctx, `Continue with less than ${formatSize(LOW_SPACE_BYTES)} free?`, yes);
  }
}

/** Whether the result goes to stdout as data (`-o json|yaml`, or `auto` into a pipe). */
export function resultAsData(f: Factory, output: OutputTarget): boolean {
  return output.format === "json" || output.format === "yaml" || (output.format === "auto" && !f.ctx.stdout.isTTY);
}

/** The options of `support-package cluster|database|node`. */
export interface GenerateOptions {
  readonly skipChecks: boolean;
  readonly useNewApi: boolean;
  readonly useOldApi: boolean;
  readonly optimize: boolean;
  readonly optimizeVerbose: boolean;
  readonly logLines: number;
  readonly waitTimeout: number;
  /** Seconds the cluster may take to start sending (`--timeout` bounds every later silence). */
  readonly firstByteTimeout: number;
  readonly yes: boolean;
  readonly upload: boolean;
  readonly noSave: boolean;
  /** Start in the background and return at once. */
  readonly noWait: boolean;
  /** Set in the background process: the job to report to. */
  readonly jobId?: string;
}
