import type { FileSystem } from "../runtime/mod.ts";
import { joinPath } from "../runtime/mod.ts";

/** What this machine knows of one package generation, foreground or background. */
export interface JobRecord {
  readonly task_id: string;
  /** `in_progress`, `completed` or `failed`. */
  readonly status: "in_progress" | "completed" | "failed";
  /** Percent done when the size is known, else null. */
  readonly progress: number | null;
  readonly message: string;
  readonly package_type: string;
  readonly file_path?: string;
  /** ISO 8601 UTC. */
  readonly started: string;
  readonly updated: string;
  /** The background process, for `--no-wait` jobs. */
  readonly pid?: number;
  /** The command's result once it is done. */
  readonly result?: unknown;
}

/** Jobs kept in the state file; older ones are dropped. */
const KEEP = 200;

/**
 * Where jobs are kept: `$XDG_STATE_HOME/storectl/support-packages.json`, by default
 * `~/.local/state/storectl/support-packages.json`.
 *
 * @example
 * ```ts
 * import { jobsFile } from "./jobs.ts";
 * jobsFile({ XDG_STATE_HOME: "/var/lib/me" }, "/home/me"); // "/var/lib/me/storectl/support-packages.json"
 * ```
 */
export function jobsFile(env: Readonly<Record<string, string | undefined>>, home: string): string {
  const base = env.XDG_STATE_HOME || joinPath(home, ".local/state");
  return joinPath(joinPath(base, "storectl"), "support-packages.json");
}

/**
 * A job id: `sp-<UTC timestamp>-<4 hex>`, readable and unique enough for one machine.
 *
 * @example
 * ```ts
 * import { newJobId } from "./jobs.ts";
 * newJobId(new Date(Date.UTC(2026, 0, 31, 8, 5, 9))); // "sp-20260131T080509-3fa1"
 * ```
 */
export function newJobId(date: Date): string {
  const stamp = date.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "");
  return `sp-${stamp}-${crypto.randomUUID().slice(0, 4)}`;
}

/** The job records of one machine, in one JSON file changed under a lock. */
export interface JobStore {
  /** Every job, newest first. */
  list(): Promise<JobRecord[]>;
  get(id: string): Promise<JobRecord | undefined>;
  /** Creates or replaces a job's record. */
  put(record: JobRecord): Promise<void>;
  /** Writes `change` over a job's record as it is now (another process may have changed it); nothing when it is gone. */
  update(id: string, change: Partial<JobRecord>): Promise<void>;
}

/** The store over a file system. */
export function jobStore(fs: FileSystem, file: string): JobStore {
  const read = async (): Promise<JobRecord[]> => {
    const text = await fs.readTextFileIfExists(file);
    if (text === undefined) return [];
    try {
      const data = JSON.parse(text);
      return Array.isArray(data) ? data : [];
    } catch {
      return []; // a damaged state file holds nothing worth failing for; the next write replaces it
    }
  };
  return {
    list: read,
    get: async (id) => (await read()).find((job) => job.task_id === id),
    put: (record) => change(() => record),
    update: (id, fields) =>
      change((jobs) => {
        const current = jobs.find((job) => job.task_id === id);
        return current && { ...current, ...fields };
      }),
  };

  /** Replaces one record, as `next` makes it from the jobs as they are, under the file's lock. */
  async function change(next: (jobs: JobRecord[]) => JobRecord | undefined): Promise<void> {
    const release = await fs.lock(file);
    try {
      const jobs = await read();
      const record = next(jobs);
      if (!record) return;
      const others = jobs.filter((job) => job.task_id !== record.task_id);
      const all = [record, ...others].sort((a, b) => b.started.localeCompare(a.started)).slice(0, KEEP);
      await fs.writeFileAtomic(file, JSON.stringify(all, null, 2) + "\n", { mode: 0o600 });
    } finally {
      await release();
    }
  }
}
