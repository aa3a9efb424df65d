/**
 * How late `ctl cloud database create --wait` returns after its task completes: the emulator's
 * tasks take 3 s (`--task-delay-ms 3000`), and each run's lateness is the time from the task's
 * completion (its `timestamp`, stamped by the emulator on the same clock) to the exit of `ctl`
 * — polling pauses, the last poll, fetching the database, printing and exiting. Target: within
 * 1.5 s, with the default `--wait-interval` (1 s), on Deno and on the Node bundle.
 *
 * Run: `deno run -A bench/wait_bench.ts` (`BENCH_RUNS`, default 5 per runtime). Needs node.
 *
 * @module
 */
import { bundleAll } from "../tools/bundle.ts";
import { startEmulator } from "../testing/emulator_process.ts";
import { userEnv } from "../testing/tools.ts";

const TASK_MS = 3000;
const TARGET_MS = 1500;
const RUNS = Number(Deno.env.get("BENCH_RUNS") ?? 5);
const root = new URL("..", import.meta.url).pathname;
const headers = { "x-api-key": "demo-key", "x-api-secret-key": "demo-secret" };

await using emulator = await startEmulator(["--task-delay-ms", String(TASK_MS), "--rate-limit-per-minute", "0"]);
const dir = await Deno.makeTempDir();
await bundleAll(`${dir}/dist`);
const env = {
  ...userEnv(),
  STORE_CONFIG_FILE: `${dir}/none.toml`,
  STORE_CLOUD_API_URL: emulator.cloudUrl,
  STORE_CLOUD_API_KEY: "demo-key",
  STORE_CLOUD_API_SECRET: "demo-secret",
};
const api = async (path: string) => await (await fetch(`${emulator.cloudUrl}${path}`, { headers })).json();
const sub = (await api("/subscriptions")).subscriptions[0].id;

/** One create --wait: total time, and lateness after the task completed. */
async function once(command: string[], n: number): Promise<{ totalMs: number; lateMs: number }> {
  const started = Date.now();
  const out = await new Deno.Command(command[0], {
    args: [
      ...command.slice(1),
      ...["cloud", "database", "create", "--subscription", String(sub), "--name", `bench-${n}`],
      ...["--memory-limit-gb", "1", "--wait", "-o", "json"],
    ],
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const ended = Date.now();
  if (out.code !== 0) throw new Error(`ctl failed (${out.code}): ${new TextDecoder().decode(out.stderr)}`);
  const [task] = await api("/tasks?offset=0&limit=1");
  if (task.status !== "processing-completed") throw new Error(`unexpected task ${JSON.stringify(task)}`);
  return { totalMs: ended - started, lateMs: ended - Date.parse(task.timestamp) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const lines: string[] = [];
let n = 0;
for (
  const [label, command] of [
    ["Deno", [Deno.execPath(), "run", "-A", `${root}cli/main.ts`]],
    ["Node bundle", ["node", `${dir}/dist/ctl.mjs`]],
  ] as const
) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await once([...command], n++));
  const late = runs.map((r) => r.lateMs);
  const worst = Math.max(...late);
  lines.push(
    `${label}: returned ${median(late)} ms (median) / ${worst} ms (worst) after a ${TASK_MS} ms task completed; ` +
      `total ${median(runs.map((r) => r.totalMs))} ms (median) = ${
        (median(runs.map((r) => r.totalMs)) / TASK_MS).toFixed(2)
      }× the task; target ≤ ${TARGET_MS} ms ${worst <= TARGET_MS ? "✅" : "❌"} (${RUNS} runs: ${late.join(", ")})`,
  );
}
await Deno.remove(dir, { recursive: true });
for (const line of lines) console.log(line);
