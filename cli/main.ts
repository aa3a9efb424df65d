/**
 * The `ctl` entry: builds the real context and runs. `deno run -A cli/main.ts …`,
 * `deno task ctl …`, or `node dist/ctl.mjs …`.
 *
 * @module
 */
import { systemKeyring } from "../lib/config/mod.ts";
import { createFetch } from "../lib/http/mod.ts";
import {
  args,
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

onShutdownSignal(async () => {
  await removePartialFiles();
  exit(130);
});

const code = await run(args(), {
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
exit(code);
