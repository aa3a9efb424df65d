/**
 * Builds the real context, runs `ctl` and exits with its code. Loaded by `cli/main.ts`.
 *
 * @module
 */
import { systemKeyring } from "../lib/config/mod.ts";
import { loadRuntime } from "../lib/runtime/mod.ts";
import { run } from "./run.ts";

/** Runs `ctl` with `argv` in the real world, then exits. */
export async function start(argv: string[]): Promise<never> {
  const runtime = await loadRuntime();
  runtime.onTerminate(async (signal) => {
    await runtime.fs.removePartialFiles();
    runtime.exit(128 + signal.number);
  });
  const decoder = new TextDecoder();
  const code = await run(argv, {
    env: runtime.env(),
    stdout: runtime.stdout,
    stderr: runtime.stderr,
    readStdin: async () => decoder.decode(await runtime.stdin.readAll()),
    readTextFile: runtime.fs.readTextFile,
    readTextFileIfExists: runtime.fs.readTextFileIfExists,
    writeFileAtomic: runtime.fs.writeFileAtomic,
    writeStreamAtomic: runtime.fs.writeStream,
    home: runtime.homeDir(),
    keyring: systemKeyring(),
    createTransport: runtime.createTransport,
  });
  await Promise.all([runtime.stdout.flush(), runtime.stderr.flush()]);
  return runtime.exit(code);
}
