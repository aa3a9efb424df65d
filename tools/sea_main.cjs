// The entry of ctl's Node single executable (built by tools/sea.ts): runs ctl's script, an asset
// of the binary, with the V8 code cache of a run made at build time (another asset).
//
// Such an entry can require() built-in modules only and cannot import(): the script's
// `import("x")` calls are `__import("x")`, answered here, and the native addons it may ask for
// (the keyring) are looked for in a node_modules beside the binary.
//
// STORECTL_SEA_CODE_CACHE_OUT=<file> (for tools/sea.ts) writes the code cache of this run there
// when the binary has none or V8 rejected it.
"use strict";
const sea = require("node:sea");
const { Script } = require("node:vm");

const addons = JSON.parse(sea.getAsset("addons.json", "utf8"));

function __import(specifier) {
  return new Promise((resolve) => {
    const loaded = specifier.startsWith("node:") ? require(specifier) : addon(specifier);
    resolve({ ...loaded, default: loaded });
  });
}

function addon(specifier) {
  try {
    return require("node:module").createRequire(process.execPath)(specifier);
  } catch (error) {
    if (error?.code !== "MODULE_NOT_FOUND") throw error;
    throw new Error(
      `${specifier} is not part of this binary (a native addon): put a node_modules folder that has it beside ` +
        `the binary (npm install ${addons[specifier] ?? specifier} there), or give the value another way`,
      { cause: error },
    );
  }
}

let cachedData;
try {
  cachedData = new Uint8Array(sea.getAsset("ctl.cache"));
} catch { /* built without one */ }
const script = new Script(
  `(function (exports, require, module, __filename, __dirname, __import) {${sea.getAsset("ctl.cjs", "utf8")}\n})`,
  { filename: "ctl.cjs", cachedData },
);
const out = process.env.STORECTL_SEA_CODE_CACHE_OUT;
if (out && (cachedData === undefined || script.cachedDataRejected)) {
  process.once("exit", () => require("node:fs").writeFileSync(out, script.createCachedData()));
}
const ctl = { exports: {} };
script.runInThisContext()(ctl.exports, require, ctl, __filename, __dirname, __import);
