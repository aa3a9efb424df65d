/**
 * Times whole commands: warm-up runs, then `runs` timed runs; reports the median and p90.
 *
 * @module
 */
export interface Timing {
  readonly label: string;
  readonly medianMs: number;
  readonly p90Ms: number;
}

/** Runs `argv` `runs` times after `warmup` runs; every run must exit 0. */
export async function timeCommand(
  label: string,
  argv: string[],
  options: { env?: Record<string, string>; runs?: number; warmup?: number } = {},
): Promise<Timing> {
  const { runs = 20, warmup = 3 } = options;
  const samples: number[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    const started = performance.now();
    const out = await new Deno.Command(argv[0], {
      args: argv.slice(1),
      env: options.env,
      stdout: "null",
      stderr: "piped",
    })
      .output();
    const elapsed = performance.now() - started;
    if (out.code !== 0) throw new Error(`${label} failed (${out.code}): ${new TextDecoder().decode(out.stderr)}`);
    if (i >= warmup) samples.push(elapsed);
  }
  samples.sort((a, b) => a - b);
  return {
    label,
    medianMs: samples[Math.floor(samples.length / 2)],
    p90Ms: samples[Math.floor(samples.length * 0.9)],
  };
}

/** Prints a comparison line: `candidate / baseline = ratio (target ≤ limit): PASS|FAIL`. */
export function compare(candidate: Timing, baseline: Timing, limit: number): string {
  const ratio = candidate.medianMs / baseline.medianMs;
  return `${candidate.label}: ${candidate.medianMs.toFixed(1)} ms (p90 ${candidate.p90Ms.toFixed(1)}) vs ` +
    `${baseline.label}: ${baseline.medianMs.toFixed(1)} ms (p90 ${baseline.p90Ms.toFixed(1)}) = ` +
    `${ratio.toFixed(2)}× (target ≤ ${limit}×): ${ratio <= limit ? "PASS" : "FAIL"}`;
}
