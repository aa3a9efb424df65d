/**
 * Caps a process's CPU with a cgroup (v1 `cpu` controller, `cpu.cfs_quota_us`; needs root), so a
 * benchmark can make a server, not its load generator, the limit on a machine with few cores.
 *
 * @example
 * ```ts ignore
 * await using _ = await limitCpu(redisPid, 0.2); // at most a fifth of one core
 * ```
 *
 * @module
 */

const ROOT = "/sys/fs/cgroup/cpu";
/** The kernel refuses a smaller `cpu.cfs_quota_us`. */
const MIN_QUOTA_US = 1000;

/**
 * Puts `pid` (all its threads) in a cgroup of its own with `cores` of CPU; undone on dispose. The
 * share is granted per `periodMs` (the kernel's default 100): a process over it is stopped until
 * the next period, so a short period caps as a slower CPU would, and a long one as pauses.
 */
export async function limitCpu(pid: number, cores: number, periodMs = 100): Promise<AsyncDisposable> {
  const quotaUs = Math.round(cores * periodMs * 1000);
  if (quotaUs < MIN_QUOTA_US) {
    throw new Error(
      `a CPU share of ${cores} per ${periodMs} ms period is ${quotaUs} µs, below the kernel's least quota of 1 ms; ` +
        `use a period of at least ${Math.ceil(MIN_QUOTA_US / 1000 / cores)} ms (--redis-cpu-period-ms)`,
    );
  }
  const dir = `${ROOT}/storectl-bench-${pid}`;
  try {
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(`${dir}/cpu.cfs_period_us`, String(periodMs * 1000));
    await Deno.writeTextFile(`${dir}/cpu.cfs_quota_us`, String(quotaUs));
    await Deno.writeTextFile(`${dir}/cgroup.procs`, String(pid));
  } catch (error) {
    throw new Error(
      `cannot cap the CPU of process ${pid} with a cgroup at ${dir} (${(error as Error).message}); ` +
        "run as root on a machine with the cgroup v1 cpu controller mounted, or leave out --redis-cpu",
    );
  }
  return {
    async [Symbol.asyncDispose]() {
      await Deno.writeTextFile(`${ROOT}/cgroup.procs`, String(pid)).catch(() => {}); // it may have exited
      await Deno.remove(dir).catch(() => {});
    },
  };
}
