/**
 * Runs a command and measures its peak resident memory: `getrusage(RUSAGE_CHILDREN).ru_maxrss`
 * read by a small python3 parent once the command has ended, so the peak is exact (polling
 * `/proc/<pid>/status` could miss one just before the exit). Needs python3: declare it with
 * `missingTools("python3")`.
 *
 * @example
 * ```ts
 * import { runMeasured } from "./peak_rss.ts";
 * const { code, peakRssBytes } = await runMeasured(["true"], { env: {}, cwd: "/tmp" });
 * ```
 *
 * @module
 */
import { requireTool } from "./tools.ts";

const PARENT = `import resource, subprocess, sys
code = subprocess.call(sys.argv[2:])
with open(sys.argv[1], "w") as out:
    out.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(code)`;

/** What a measured run did. */
export interface MeasuredRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The command's peak resident set size, in bytes. */
  readonly peakRssBytes: number;
  /** Wall time of the run, in milliseconds. */
  readonly ms: number;
}

/** Runs `argv` with exactly `env` in `cwd`, stdin closed, and returns its output and peak RSS. */
export async function runMeasured(
  argv: readonly string[],
  options: { env: Record<string, string>; cwd: string },
): Promise<MeasuredRun> {
  const report = await Deno.makeTempFile({ prefix: "peak-rss-" });
  try {
    const started = performance.now();
    const out = await new Deno.Command(requireTool("python3"), {
      args: ["-c", PARENT, report, ...argv],
      env: options.env,
      clearEnv: true,
      cwd: options.cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const ms = performance.now() - started;
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    const kib = Number(await Deno.readTextFile(report)); // Linux reports ru_maxrss in KiB
    return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr), peakRssBytes: kib * 1024, ms };
  } finally {
    await Deno.remove(report);
  }
}
