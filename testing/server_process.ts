/**
 * Runs a server as a subprocess and waits for its `listening on <url>` line, for tests and
 * benchmarks. `stop()` sends SIGTERM and resolves with the exit code; with `captureStderr`,
 * `stderr()` then resolves with what it wrote there.
 *
 * @example
 * ```ts
 * await using server = await startServer([Deno.execPath(), "run", "-A", "server/main.ts"], { PORT: "0" });
 * await fetch(`${server.url}/health`);
 * ```
 *
 * @module
 */
export interface ServerProcess extends AsyncDisposable {
  readonly url: string;
  readonly pid: number;
  /** Its `listening on …` line, or everything it printed up to its `ready` line. */
  readonly banner: string;
  stop(): Promise<number>;
  /** Kills it with SIGKILL, as a crash would (no shutdown of its own). */
  kill(): Promise<void>;
  /** With `captureStderr`: everything it wrote to stderr, once it has stopped. */
  stderr(): Promise<string>;
  /** With `captureStderr`: what it has written to stderr so far. */
  stderrSoFar(): string;
  /** Its exit code once it has ended (stopped, killed or crashed); `undefined` while it runs. */
  exitCode(): number | undefined;
}

export const DENO_SERVER = [Deno.execPath(), "run", "-A", new URL("../server/main.ts", import.meta.url).pathname];

export async function startServer(
  command: string[],
  env: Record<string, string> = {},
  options: { captureStderr?: boolean; cwd?: string; ready?: RegExp } = {},
): Promise<ServerProcess> {
  const ready = options.ready ?? /listening on (\S+)/;
  const child = new Deno.Command(command[0], {
    args: command.slice(1),
    cwd: options.cwd,
    env: { PORT: "0", ...env },
    stdout: "piped",
    stderr: options.captureStderr ? "piped" : "inherit",
  }).spawn();
  let written = "";
  const stderr = options.captureStderr
    ? (async () => {
      for await (const text of child.stderr.pipeThrough(new TextDecoderStream())) written += text;
      return written;
    })()
    : Promise.resolve("");
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let output = "";
  while (!ready.test(output)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${command.join(" ")} exited before listening:\n${output}`);
    output += value;
  }
  reader.releaseLock();
  let exitCode: number | undefined;
  child.status.then((status) => exitCode = status.code);
  let stopped: Promise<number> | undefined;
  const end = (signal: Deno.Signal) =>
    stopped ??= (async () => {
      try {
        child.kill(signal);
      } catch { /* it has ended already (crashed): its status tells how */ }
      const { code } = await child.status;
      await child.stdout.cancel().catch(() => {});
      return code;
    })();
  const stop = () => end("SIGTERM");
  return {
    url: (output.match(/listening on (\S+)/) ?? output.match(/(https?:\/\/\S+)/))![1],
    banner: options.ready ? output : output.match(/^.*listening on .*$/m)![0],
    pid: child.pid,
    stop,
    kill: async () => void await end("SIGKILL"),
    stderr: () => stderr,
    stderrSoFar: () => written,
    exitCode: () => exitCode,
    [Symbol.asyncDispose]: async () => void await stop(),
  };
}
