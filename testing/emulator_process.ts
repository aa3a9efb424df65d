/**
 * Runs the real emulator (`emulator/main.ts`) as a subprocess on free ports, for
 * end-to-end tests.
 *
 * @example
 * ```ts
 * await using emulator = await startEmulator(["--tls"]);
 * await fetch(`${emulator.cloudUrl}/subscriptions`, { headers });
 * ```
 *
 * @module
 */
export interface EmulatorProcess extends AsyncDisposable {
  readonly pid: number;
  /** Cloud base URL, ending in `/v1`. */
  readonly cloudUrl: string;
  /** Enterprise origin, e.g. `https://127.0.0.1:40123` (paths include `/v1`). */
  readonly enterpriseUrl: string;
  /** With `--tls`: the certificate written by `--ca-out`. */
  readonly caCert?: string;
  /** Stops it (SIGTERM); resolves with what it wrote to stderr when started with `captureStderr`. */
  stop(): Promise<string>;
}

const MAIN = new URL("../emulator/main.ts", import.meta.url).pathname;

/**
 * The emulator on Deno, as `deno task emulator` runs it: with request signals that abort only
 * when the client goes away (the stall fault watches for that), which also spares the legacy
 * behaviour's warning.
 */
export const EMULATOR_COMMAND = [Deno.execPath(), "run", "-A", "--unstable-no-legacy-abort", MAIN];

/**
 * Starts the emulator with `extraArgs`. `command` runs it another way, e.g.
 * `["node", "dist/emulator.mjs"]` for the Node bundle. Its stderr passes through, or is kept
 * for `stop()` with `captureStderr`.
 */
export async function startEmulator(
  extraArgs: string[] = [],
  command: string[] = EMULATOR_COMMAND,
  options: { captureStderr?: boolean } = {},
): Promise<EmulatorProcess> {
  const dir = await Deno.makeTempDir();
  const tls = extraArgs.includes("--tls");
  const caOut = `${dir}/ca.pem`;
  const child = new Deno.Command(command[0], {
    args: [
      ...command.slice(1),
      "--cloud-port",
      "0",
      "--enterprise-port",
      "0",
      ...(tls ? ["--ca-out", caOut] : []),
      ...extraArgs,
    ],
    stdout: "piped",
    stderr: options.captureStderr ? "piped" : "inherit",
  }).spawn();
  const stderr = options.captureStderr ? new Response(child.stderr).text() : Promise.resolve("");
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let output = "";
  const urls: Record<string, string> = {};
  while (!urls.cloud || !urls.enterprise) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`emulator exited before listening:\n${output}`);
    output += value;
    for (const [, side, url] of output.matchAll(/(cloud|enterprise) API:\s+(\S+)/g)) urls[side] = url;
  }
  lines.releaseLock();
  child.stdout.cancel().catch(() => {});
  let stopped: Promise<string> | undefined;
  const stop = () =>
    stopped ??= (async () => {
      child.kill("SIGTERM");
      await child.status;
      await Deno.remove(dir, { recursive: true });
      return await stderr;
    })();
  return {
    pid: child.pid,
    cloudUrl: urls.cloud,
    enterpriseUrl: urls.enterprise.replace(/\/v1$/, ""),
    caCert: tls ? await Deno.readTextFile(caOut) : undefined,
    stop,
    [Symbol.asyncDispose]: async () => void await stop(),
  };
}
