/**
 * Support-package optimization against the part no optimizer can skip, in the same run:
 *
 * - `ctl enterprise support-package optimize <1 GiB package>` on Deno and on the Node bundle vs
 *   `zcat pkg > /dev/null` (decompression alone), interleaved pairs; target wall time ≤ 1.5× and
 *   peak RSS < 200 MB;
 * - download + optimize + upload of the same size from the emulator
 *   (`support-package cluster --optimize --upload --no-save`), peak RSS < 200 MB on both.
 *
 * The package is the emulator's (`packageStream`, `--debuginfo-mb`), written once to a temporary
 * file. Peak RSS comes from GNU time (`/usr/bin/time -f %M`). Size and pairs:
 * `BENCH_PACKAGE_MB` (1024), `BENCH_PAIRS` (3).
 *
 * Run: `deno run -A bench/optimize_bench.ts`. Needs zcat, node and GNU time.
 *
 * @module
 */
import { bundleAll } from "../tools/bundle.ts";
import { startEmulator } from "../testing/emulator_process.ts";
import { userEnv } from "../testing/tools.ts";
import { packageStream } from "../emulator/mod.ts";

const root = new URL("..", import.meta.url).pathname;
const deno = Deno.execPath();
const SIZE_MB = Number(Deno.env.get("BENCH_PACKAGE_MB") ?? 1024);
const PAIRS = Number(Deno.env.get("BENCH_PAIRS") ?? 3);
const TIME = "/usr/bin/time";

interface Run {
  readonly ms: number;
  readonly rssMb: number;
}

/** Runs a command under GNU time: wall time and peak RSS. */
async function run(argv: readonly string[], env: Record<string, string>): Promise<Run> {
  const started = performance.now();
  const out = await new Deno.Command(TIME, {
    args: ["-f", "PEAK_RSS_KB %M", ...argv],
    env,
    clearEnv: true,
    stdout: "null",
    stderr: "piped",
  }).output();
  const ms = performance.now() - started;
  const stderr = new TextDecoder().decode(out.stderr);
  if (out.code !== 0) throw new Error(`${argv.join(" ")} failed (${out.code}): ${stderr}`);
  const kb = Number(/PEAK_RSS_KB (\d+)/.exec(stderr)?.[1]);
  return { ms, rssMb: kb / 1024 };
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const dir = await Deno.makeTempDir({ prefix: "optimize-bench-" });
try {
  const pkg = `${dir}/package.tar.gz`;
  const file = await Deno.open(pkg, { write: true, create: true, truncate: true });
  await packageStream({
    seed: 1,
    sizeMb: SIZE_MB,
    scope: { kind: "cluster" },
    cluster: { name: "bench", softwareVersion: "7.2.4" },
    nodes: [1, 2, 3].map((uid) => ({ uid, addr: `10.0.0.${uid}` })),
    bdbs: [1, 2, 3, 4].map((uid) => ({ uid, name: `db${uid}` })),
  }).pipeTo(file.writable);
  const compressed = (await Deno.stat(pkg)).size;
  await bundleAll(`${dir}/dist`);
  const env = { ...userEnv(), STORE_CONFIG_FILE: `${dir}/none.toml`, XDG_STATE_HOME: `${dir}/state` };
  const optimize = ["enterprise", "support-package", "optimize", pkg, "--file", `${dir}/out.tar.gz`, "--yes"];
  const candidates = [
    { label: "Deno", argv: [deno, "run", "-A", `${root}cli/main.ts`, ...optimize] },
    { label: "Node", argv: ["node", `${dir}/dist/ctl.cjs`, ...optimize] },
  ];
  const zcat = ["sh", "-c", `zcat '${pkg}' > /dev/null`];
  const lines: string[] = [];
  lines.push(
    `package: ${SIZE_MB} MiB of files, ${(compressed / 2 ** 20).toFixed(1)} MiB compressed; ${PAIRS} interleaved pairs`,
  );
  for (const candidate of candidates) {
    const a: Run[] = [];
    const b: Run[] = [];
    for (let i = 0; i < PAIRS; i++) {
      if (i % 2 === 0) {
        a.push(await run(candidate.argv, env));
        b.push(await run(zcat, env));
      } else {
        b.push(await run(zcat, env));
        a.push(await run(candidate.argv, env));
      }
    }
    const ratio = median(a.map((r, i) => r.ms / b[i].ms));
    const rss = Math.max(...a.map((r) => r.rssMb));
    lines.push(
      `optimize (${candidate.label}): median ${(median(a.map((r) => r.ms)) / 1000).toFixed(2)} s vs zcat ${
        (median(b.map((r) => r.ms)) / 1000).toFixed(2)
      } s: ${ratio.toFixed(2)}× (target ≤ 1.5× ${ratio <= 1.5 ? "✅" : "❌"}); peak RSS ${rss.toFixed(0)} MB ` +
        `(zcat ${Math.max(...b.map((r) => r.rssMb)).toFixed(0)} MB; target < 200 MB ${rss < 200 ? "✅" : "❌"})`,
    );
    console.log(lines.at(-1));
  }

  await using emulator = await startEmulator(["--debuginfo-mb", String(SIZE_MB), "--rate-limit-per-minute", "0"]);
  const origin = emulator.cloudUrl.replace(/\/v1$/, "");
  const uploadEnv = {
    ...env,
    STORE_ENTERPRISE_URL: emulator.enterpriseUrl,
    STORE_ENTERPRISE_USER: "admin@example.com",
    STORE_ENTERPRISE_PASSWORD: "demo-password",
    STORE_FILES_API_URL: `${origin}/files/api/rest/v1`,
    STORE_ENTERPRISE_FILES_API_KEY: "demo-files-key",
  };
  const generate = [
    "enterprise",
    "support-package",
    "cluster",
    "--optimize",
    "--upload",
    "--no-save",
    "--timeout",
    "300",
  ];
  for (
    const [label, argv] of [
      ["Deno", [deno, "run", "-A", `${root}cli/main.ts`, ...generate]],
      ["Node", ["node", `${dir}/dist/ctl.cjs`, ...generate]],
    ] as const
  ) {
    const r = await run(argv, uploadEnv);
    lines.push(
      `download + optimize + upload (${label}): ${(r.ms / 1000).toFixed(1)} s (the emulator generates the package ` +
        `as it sends it); peak RSS ${r.rssMb.toFixed(0)} MB (target < 200 MB ${r.rssMb < 200 ? "✅" : "❌"})`,
    );
    console.log(lines.at(-1));
  }
  console.log(`\n${lines.join("\n")}`);
} finally {
  await Deno.remove(dir, { recursive: true });
}
