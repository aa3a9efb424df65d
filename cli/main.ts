/**
 * The `ctl` entry: `deno run -A cli/main.ts …`, `deno task ctl …`, or `node dist/ctl.mjs …`.
 *
 * `--version` is answered before anything else loads: scripts and installers run it often.
 *
 * @module
 */
import { VERSION } from "../lib/version/mod.ts";

declare const process: { argv: string[] };
const argv = "Deno" in globalThis ? Deno.args : process.argv.slice(2);
if (argv.length === 1 && argv[0] === "--version") console.log(VERSION);
else await (await import("./start.ts")).start(argv);
