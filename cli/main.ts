/**
 * The `ctl` entry: `deno run -A cli/main.ts …`, `deno task ctl …`, or `node dist/ctl.mjs …`.
 *
 * `--version` is answered before anything else loads: scripts and installers run it often.
 * Otherwise the command line's machinery, the runtime and the named command's module load side
 * by side instead of one after the other.
 *
 * @module
 */
import { loadRuntime } from "../lib/runtime/mod.ts";

declare const process: { argv: string[] };
const argv = "Deno" in globalThis ? Deno.args : process.argv.slice(2);
if (argv.length === 1 && argv[0] === "--version") console.log((await import("../lib/version/mod.ts")).VERSION);
else {
  const [{ start }, runtime] = await Promise.all([
    import("./start.ts"),
    loadRuntime(),
    import("./commands/mod.ts").then(async ({ ROOT }) => (await import("./framework/tree.ts")).prefetch(ROOT, argv)),
  ]);
  await start(argv, runtime);
}
