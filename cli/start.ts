/**
 * Builds the real context from the runtime, runs `ctl` and exits with its code. Loaded by
 * `cli/main.ts`.
 *
 * @module
 */
import type { Keyring } from "../lib/config/mod.ts";
import type { Runtime } from "../lib/runtime/mod.ts";
import { type CliContext, Interrupted } from "./context.ts";
import { run } from "./run.ts";

/** How long a command gets to stop by itself after a signal before partial files go and ctl exits. */
const GRACE_MS = 500;

/** Runs `ctl` with `argv` in the real world, then exits. */
export async function start(argv: readonly string[], runtime: Runtime): Promise<never> {
  const interrupt = new AbortController();
  runtime.onTerminate((signal) => {
    interrupt.abort(new Interrupted(signal));
    setTimeout(async () => {
      await runtime.fs.removePartialFiles();
      runtime.exit(128 + signal.number);
    }, GRACE_MS);
  });
  const ctx: CliContext = {
    env: runtime.env(),
    cwd: runtime.cwd(),
    home: runtime.homeDir(),
    stdin: runtime.stdin,
    stdout: runtime.stdout,
    stderr: runtime.stderr,
    fs: runtime.fs,
    keyring: systemKeyringOnDemand(),
    createTransport: runtime.createTransport,
    async confirm(question) {
      runtime.stderr.write(`${question} [y/N] `);
      return /^y(es)?$/i.test((await runtime.stdin.readLine())?.trim() ?? "");
    },
    interrupt: interrupt.signal,
    now: Date.now,
    gzip: runtime.gzip,
    gunzip: runtime.gunzip,
    launchDetached: runtime.launchDetached,
    serve: runtime.serve,
  };
  const code = await run(argv, ctx);
  await runtime.fs.removePartialFiles();
  await Promise.all([runtime.stdout.flush(), runtime.stderr.flush()]);
  return runtime.exit(code);
}

/** The system keyring, its module loaded on first use: most runs (help, say) never touch it. */
function systemKeyringOnDemand(): Keyring {
  const keyring = () => import("../lib/config/mod.ts").then(({ systemKeyring }) => systemKeyring());
  return {
    get: async (name) => (await keyring()).get(name),
    set: async (name, secret) => (await keyring()).set(name, secret),
    delete: async (name) => (await keyring()).delete(name),
  };
}
