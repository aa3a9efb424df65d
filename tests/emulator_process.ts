/**
 * Runs the real emulator (`server/emulator/main.ts`) as a subprocess on free ports, for
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
}

const MAIN = new URL("../server/emulator/main.ts", import.meta.url).pathname;

/**
 * Starts the emulator with `extraArgs`. `command` runs it another way, e.g.
 * `["node", "dist/emulator.mjs"]` for the Node bundle.
 */
export async function startEmulator(
  extraArgs: string[] = [],
  command: string[] = [Deno.execPath(), "run", "-A", MAIN],
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
    stderr: "inherit",
  }).spawn();
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
  return {
    pid: child.pid,
    cloudUrl: urls.cloud,
    enterpriseUrl: urls.enterprise.replace(/\/v1$/, ""),
    caCert: tls ? await Deno.readTextFile(caOut) : undefined,
    async [Symbol.asyncDispose]() {
      child.kill("SIGTERM");
      await child.status;
      await Deno.remove(dir, { recursive: true });
    },
  };
}
