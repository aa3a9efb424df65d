/**
 * Times whole commands, interleaved with a baseline (A, B, A, B…) so that both see the same
 * machine, and reports the ratio as the median of the pairs' ratios with the best runs beside it.
 *
 * @module
 */

/** A command to time. */
export interface Subject {
  readonly label: string;
  readonly argv: readonly string[];
  readonly env?: Record<string, string>;
}

/** Timings of a candidate against its baseline, paired run by run. */
export interface Comparison {
  readonly candidate: string;
  readonly baseline: string;
  readonly candidateMs: { readonly median: number; readonly best: number };
  readonly baselineMs: { readonly median: number; readonly best: number };
  /** Median over the pairs of candidate / baseline. */
  readonly ratio: number;
  /** Best candidate run / best baseline run. */
  readonly bestRatio: number;
  readonly pairs: number;
}

async function once(subject: Subject): Promise<number> {
  const started = performance.now();
  const out = await new Deno.Command(subject.argv[0], {
    args: subject.argv.slice(1),
    env: subject.env,
    clearEnv: subject.env !== undefined,
    stdout: "null",
    stderr: "piped",
  }).output();
  const elapsed = performance.now() - started;
  if (out.code !== 0) {
    throw new Error(`${subject.label} failed (${out.code}): ${new TextDecoder().decode(out.stderr)}`);
  }
  return elapsed;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Runs `warmup` unrecorded pairs, then `pairs` recorded ones, alternating which goes first. */
export async function compare(candidate: Subject, baseline: Subject, pairs = 21, warmup = 3): Promise<Comparison> {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < warmup + pairs; i++) {
    let candidateMs: number;
    let baselineMs: number;
    if (i % 2 === 0) {
      candidateMs = await once(candidate);
      baselineMs = await once(baseline);
    } else {
      baselineMs = await once(baseline);
      candidateMs = await once(candidate);
    }
    if (i >= warmup) {
      a.push(candidateMs);
      b.push(baselineMs);
    }
  }

  return {
    candidate: candidate.label,
    baseline: baseline.label,
    candidateMs: { median: median(a), best: Math.min(...a) },
    baselineMs: { median: median(b), best: Math.min(...b) },
    ratio: median(a.map((ms, i) => ms / b[i])),
    bestRatio: Math.min(...a) / Math.min(...b),
    pairs,
  };
}

/** One line: `candidate / baseline: ratio (best ratio) … target: PASS|FAIL`. */
export function report(c: Comparison, target: number): string {
  const ms = (t: { median: number; best: number }) => `${t.median.toFixed(1)} ms (best ${t.best.toFixed(1)})`;
  return `${c.candidate}: ${ms(c.candidateMs)} vs ${c.baseline}: ${ms(c.baselineMs)} = ${c.ratio.toFixed(2)}× ` +
    `median of ${c.pairs} pairs, ${c.bestRatio.toFixed(2)}× best to best (target ≤ ${target}×): ` +
    `${c.ratio <= target ? "PASS" : "FAIL"}`;
}

/** CPU seconds this process and its waited-for children have used so far (Linux `/proc`). */
export function cpuSeconds(): { self: number; children: number } {
  const fields = Deno.readTextFileSync("/proc/self/stat").split(") ")[1].split(" ");
  const ticks = 100; // USER_HZ on Linux
  return {
    self: (Number(fields[11]) + Number(fields[12])) / ticks,
    children: (Number(fields[13]) + Number(fields[14])) / ticks,
  };
}
