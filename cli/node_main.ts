/**
 * `ctl`'s entry on Node (`dist/ctl.cjs`): runs the CommonJS build of `cli/main.ts` with a V8
 * code cache, so later starts skip parsing and compiling it. This file is built as CommonJS too:
 * an ES module entry costs Node its module loader's work before anything runs.
 *
 * Node 20 caches no compiled code for ES modules or `require()` (Node 22's
 * `module.enableCompileCache()` would), and compiling `ctl`'s modules was most of its start-up.
 * The build (`tools/bundle.ts`) rewrites the script's `import("x")` calls to `__import("x")`:
 * a script compiled by `node:vm` cannot import by itself, so the import runs here. The large
 * libraries that load on demand (undici, YAML, tables…) stay out of the script, as files the
 * build names relative to it (`./vendor/yaml.js`).
 *
 * V8 caches the functions a run compiled, so each command word (`api`, `profile`, …) has its own
 * cache, written beside the script when a run of it succeeds with none (or with one V8 rejects,
 * as after a Node upgrade). Where that folder is read-only, every start compiles as before. The
 * build removes the old caches with the old script.
 *
 * @module
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { Script } from "node:vm";

/** The folder of this script, as Node sets it for CommonJS. */
declare const __dirname: string;
const SCRIPT = `${__dirname}/lib/ctl.cjs`;
const word = process.argv[2] ?? "";
const CACHE = `${SCRIPT}.${/^[a-z][a-z-]{0,30}$/.test(word) ? word : "_"}.cache`;
const importFor = (specifier: string) =>
  import(specifier.startsWith("./") ? pathToFileURL(`${__dirname}/lib/${specifier.slice(2)}`).href : specifier);

let cachedData: Buffer | undefined;
try {
  cachedData = readFileSync(CACHE);
} catch { /* first run: compile, then write the cache */ }
// The build emits ASCII only (non-ASCII characters escaped), which reads faster as latin1.
const source = readFileSync(SCRIPT, "latin1");
const script = new Script(`(function (exports, require, module, __filename, __dirname, __import) {${source}\n})`, {
  filename: SCRIPT,
  cachedData,
});
if (cachedData === undefined || script.cachedDataRejected) process.once("exit", (code) => code === 0 && writeCache());
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(SCRIPT), module, SCRIPT, "", importFor);

/** Saves the compiled code, including the functions this run compiled, atomically. */
function writeCache(): void {
  const partial = `${CACHE}.${process.pid}.partial`;
  try {
    writeFileSync(partial, script.createCachedData());
    renameSync(partial, CACHE);
  } catch {
    rmSync(partial, { force: true }); // a read-only install or a full disk: start without a cache
  }
}
