/**
 * One wrk run against a URL with `wrk_identities.lua`, and what it cost: requests/s, latency
 * percentiles, and the CPU used per request by the processes under test (from `/proc/<pid>/stat`,
 * far steadier than throughput on a shared machine) and by wrk itself. Used by
 * `ratelimit_bench.ts` and `ratelimit_frameworks_bench.ts`.
 *
 * @module
 */

import { CLOCK_TICKS, cpuSeconds } from "./process_cpu.ts";

const SCRIPT = new URL("./wrk_identities.lua", import.meta.url).pathname;

/** What one run measured. */
export interface Load {
  readonly requests: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
  /** CPU per request of the watched processes (server, and redis-server where given), µs. */
  readonly cpuUs: number;
  /** The same per watched process, in the order of {@link LoadOptions.pids}. */
  readonly cpuUsByPid: readonly number[];
  /** CPU per request of wrk, µs. */
  readonly clientCpuUs: number;
}

/** How to load a URL. */
export interface LoadOptions {
  readonly url: string;
  readonly seconds: number;
  readonly connections?: number;
  readonly threads?: number;
  /** Requests/s per wrk thread; unpaced (as fast as it goes) when absent. */
  readonly threadRate?: number;
  /** Processes whose CPU is counted (the server, redis-server). */
  readonly pids: readonly number[];
  /** Requests each identity sends in a row (`WRK_REPEAT`); 1 when absent. */
  readonly repeat?: number;
  /** Another wrk script (it prints the same BENCH line); `wrk_identities.lua` when absent. */
  readonly script?: string;
  /** Variables for the script. */
  readonly env?: Readonly<Record<string, string>>;
}

let runs = 0;

/** Runs wrk once. */
export async function load(options: LoadOptions): Promise<Load> {
  const threads = options.threads ?? 1;
  const args = [
    `-t${threads}`,
    `-c${options.connections ?? 50}`,
    `-d${options.seconds}s`,
    "-s",
    options.script ?? SCRIPT,
    options.url,
  ];
  const env: Record<string, string> = { ...options.env, WRK_TAG: `${Date.now().toString(36)}${runs++}` };
  if (options.threadRate) env.WRK_THREAD_RATE = String(options.threadRate);
  if (options.repeat) env.WRK_REPEAT = String(options.repeat);
  const before = await Promise.all(options.pids.map(cpuSeconds));
  // The shell reports the CPU of the children it waited for (cutime, cstime): wrk's own.
  const out = await new Deno.Command("sh", {
    args: ["-c", 'wrk "$@" || exit $?; cat /proc/$$/stat', "sh", ...args],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const after = await Promise.all(options.pids.map(cpuSeconds));
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) throw new Error(`wrk ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}${text}`);
  const summary = JSON.parse(/^BENCH (.*)$/m.exec(text)![1]);
  const shell = text.trimEnd().split("\n").at(-1)!;
  const fields = shell.slice(shell.lastIndexOf(")") + 2).split(" ");
  const clientSeconds = (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS; // cutime, cstime
  const used = after.map((t, i) => t - before[i]);
  const cpu = used.reduce((sum, t) => sum + t, 0);
  const requests = summary.requests;
  return {
    requests,
    rps: requests / (summary.durationUs / 1e6),
    p50Ms: summary.p50Us / 1000,
    p99Ms: summary.p99Us / 1000,
    non2xx: summary.non2xx,
    errors: summary.errors,
    cpuUs: (cpu * 1e6) / requests,
    cpuUsByPid: used.map((t) => (t * 1e6) / requests),
    clientCpuUs: (clientSeconds * 1e6) / requests,
  };
}

/** The median of `values`. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** A candidate and its baseline, loaded in turn (A, B, B, A, …) so that both see the same machine. */
export interface Pairs {
  readonly candidate: readonly Load[];
  readonly baseline: readonly Load[];
}

/** Runs `pairs` interleaved pairs after one unrecorded warm-up pair. */
export async function interleave(
  candidate: () => Promise<Load>,
  baseline: () => Promise<Load>,
  pairs: number,
): Promise<Pairs> {
  const [a, b] = await rounds([candidate, baseline], pairs);
  return { candidate: a, baseline: b };
}

/**
 * Runs every subject once per round, after one unrecorded warm-up round, in turn so that all
 * see the same machine: forward in even rounds and backward in odd ones (A, B, C, C, B, A, A,
 * …), so no subject always follows the same one. Returns each subject's runs, round by round.
 */
export async function rounds<T>(subjects: readonly (() => Promise<T>)[], count: number): Promise<T[][]> {
  for (const subject of subjects) await subject();
  const runs: T[][] = subjects.map(() => []);
  for (let round = 0; round < count; round++) {
    const order = subjects.map((_, i) => (round % 2 === 0 ? i : subjects.length - 1 - i));
    for (const i of order) runs[i].push(await subjects[i]());
  }
  return runs;
}

/** Median over the pairs of candidate ÷ baseline for `pick`, with the best-to-best ratio. */
export function ratio<T = Load>(
  pairs: { readonly candidate: readonly T[]; readonly baseline: readonly T[] },
  pick: (load: T) => number,
  best: "max" | "min",
): { median: number; best: number } {
  const ratios = pairs.candidate.map((a, i) => pick(a) / pick(pairs.baseline[i]));
  const extreme = (loads: readonly T[]) => Math[best](...loads.map(pick));
  return { median: median(ratios), best: extreme(pairs.candidate) / extreme(pairs.baseline) };
}
