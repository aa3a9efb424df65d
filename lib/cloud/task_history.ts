/**
 * How long cloud tasks of each command type took on this machine, for the estimate shown while
 * waiting ("usually ~40 s"): `$XDG_STATE_HOME/storectl/task-durations.json`, the last
 * {@link KEEP_PER_TYPE} of each type, {@link KEEP_TYPES} types at most.
 *
 * @module
 */
import type { FileSystem } from "../runtime/mod.ts";
import { joinPath } from "../runtime/mod.ts";

/** Durations kept per command type: enough for a median that follows change. */
export const KEEP_PER_TYPE = 20;
/** Command types kept: the most recently seen. */
export const KEEP_TYPES = 50;

/** Seconds, by command type, most recent first; and when each type was last seen. */
interface HistoryFile {
  readonly [commandType: string]: { readonly seconds: readonly number[]; readonly seen: string };
}

/**
 * The history's file: `$XDG_STATE_HOME/storectl/task-durations.json` (by default under
 * `~/.local/state`).
 *
 * @example
 * ```ts
 * historyFile({}, "/home/me"); // "/home/me/.local/state/storectl/task-durations.json"
 * ```
 */
export function historyFile(env: Readonly<Record<string, string | undefined>>, home: string): string {
  const base = env.XDG_STATE_HOME || joinPath(home, ".local/state");
  return joinPath(joinPath(base, "storectl"), "task-durations.json");
}

/** The durations of one machine's finished tasks. */
export interface TaskHistory {
  /** The median duration of `commandType` in seconds, or undefined with no history of it. */
  estimate(commandType: string): Promise<number | undefined>;
  /** Records a task of `commandType` that took `seconds`. */
  record(commandType: string, seconds: number, now: Date): Promise<void>;
}

/** The history over a file system; a file that cannot be read counts as none. */
export function taskHistory(fs: FileSystem, file: string): TaskHistory {
  const read = async (): Promise<HistoryFile> => {
    try {
      const data = JSON.parse(await fs.readTextFileIfExists(file) ?? "{}");
      return typeof data === "object" && data !== null && !Array.isArray(data) ? data : {};
    } catch {
      return {};
    }
  };
  return {
    async estimate(commandType) {
      const seconds = (await read())[commandType]?.seconds;
      return seconds?.length ? median(seconds) : undefined;
    },
    async record(commandType, seconds, now) {
      const release = await fs.lock(file);
      try {
        const all = await read();
        const mine = {
          seconds: [seconds, ...(all[commandType]?.seconds ?? [])].slice(0, KEEP_PER_TYPE),
          seen: now.toISOString(),
        };
        const kept = Object.entries({ ...all, [commandType]: mine })
          .sort(([, a], [, b]) => b.seen.localeCompare(a.seen))
          .slice(0, KEEP_TYPES);
        await fs.writeFileAtomic(file, JSON.stringify(Object.fromEntries(kept)) + "\n", { mode: 0o600 });
      } finally {
        await release();
      }
    },
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
