/**
 * Builds the real context, runs `ctl` and exits with its code. Loaded by `cli/main.ts`.
 *
 * @module
 */
import { systemKeyring } from "../lib/config/mod.ts";
import { createFetch } from "../lib/http/mod.ts";
import {
  environment,
  exit,
  homeDir,
  onShutdownSignal,
  readStdin,
  readTextFile,
  readTextFileIfExists,
  removePartialFiles,
  stderr,
  stdout,
  writeFileAtomic,
  writeStreamAtomic,
} from "../lib/runtime/mod.ts";
import { run } from "./run.ts";

/** Runs `ctl` with `argv` in the real world, then exits. */
export async function start(argv: string[]): Promise<never> {
  onShutdownSignal(async () => {
    await removePartialFiles();
    exit(130);
  });
  const code = await run(argv, {
    env: environment(),
    stdout,
    stderr,
    readStdin,
    readTextFile,
    readTextFileIfExists,
    writeFileAtomic,
    writeStreamAtomic,
    home: homeDir(),
    keyring: systemKeyring(),
    createFetch,
  });
  await Promise.all([stdout.flush(), stderr.flush()]);
  return exit(code);
}
