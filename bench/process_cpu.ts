/**
 * CPU time a process has used, from `/proc/<pid>/stat` (Linux): steadier than wall-clock time
 * when other processes share the cores, so tests and benchmarks compare work by it.
 *
 * @example
 * ```ts
 * const before = await cpuSeconds(Deno.pid);
 * ```
 *
 * @module
 */

/** Clock ticks per second of `/proc/<pid>/stat` times (`getconf CLK_TCK`, 100 on Linux). */
export const CLOCK_TICKS = 100;

/** User + system CPU seconds the process (all its threads) has used so far. */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // the name may hold spaces
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS; // utime, stime
}
