/**
 * The `ctl` entry: `deno run -A cli/main.ts …`, `deno task ctl …`, or `node dist/ctl.cjs …`.
 *
 * `--version` is answered before anything else loads: scripts and installers run it often.
 * Otherwise the command line's machinery, the runtime and the named command's module load side
 * by side instead of one after the other. No top-level `await`: the Node build of this file is a
 * CommonJS script (see `cli/node_main.ts`).
 *
 * @module
 */
import { loadRuntime } from "../lib/runtime/mod.ts";

declare const process: { argv: string[] };
const argv = "Deno" in globalThis ? Deno.args : process.argv.slice(2);
if (argv.length === 1 && argv[0] === "--version") {
  import("../lib/version/mod.ts").then(({ VERSION }) => console.log(VERSION));
} else {
  Promise.all([
    import("./start.ts"),
    loadRuntime(),
    import("./commands/mod.ts").then(async ({ ROOT }) => (await import("./framework/tree.ts")).prefetch(ROOT, argv)),
  ]).then(([{ start }, runtime]) => start(argv, runtime));
}
