// The entry of ctl's Node single executable (built by tools/sea.ts): runs ctl's script, an asset
// of the binary, with the V8 code cache of a run made at build time (another asset).
//
// Such an entry can require() built-in modules only and cannot import(): the scripts'
// `import("x")` calls are `__import("x")`, answered here. The large libraries ctl imports on
// demand are scripts of their own, compiled the first time one is imported; the native addons it
// may ask for (the keyring) are looked for in a node_modules beside the binary.
//
// STORECTL_SEA_CODE_CACHE_OUT=<file> (for tools/sea.ts) writes the code cache of this run there
// when the binary has none or V8 rejected it.
"use strict";
const sea = require("node:sea");
const { Script } = require("node:vm");

/** An asset as a string; latin1 (for ASCII: ctl's script) copies its bytes as they are, with no decoding. */
const text = (name, encoding = "utf8") => Buffer.from(sea.getRawAsset(name)).toString(encoding);

/** `addons`: the install hint of each native addon; `vendor`: the script of each on-demand library. */
const manifest = JSON.parse(text("sea.json"));

/** Runs the compiled script `name` (stored wrapped in this function's parameters); its exports. */
function run(script, name) {
  const module = { exports: {} };
  script.runInThisContext()(module.exports, require, module, name, "", __import);
  return module.exports;
}

const compile = (name, encoding, cachedData) => new Script(text(name, encoding), { filename: name, cachedData });

const vendorScripts = new Map();

function __import(specifier) {
  return new Promise((resolve) => {
    const script = manifest.vendor[specifier];
    if (script !== undefined) {
      if (!vendorScripts.has(script)) vendorScripts.set(script, run(compile(script), script));
      return resolve(vendorScripts.get(script).load[specifier]());
    }
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
        `the binary (npm install ${manifest.addons[specifier] ?? specifier} there), or give the value another way`,
      { cause: error },
    );
  }
}

let cachedData;
try {
  cachedData = new Uint8Array(sea.getRawAsset("ctl.cache"));
} catch { /* built without one */ }
const ctl = compile("ctl.cjs", "latin1", cachedData);
const out = process.env.STORECTL_SEA_CODE_CACHE_OUT;
if (out && (cachedData === undefined || ctl.cachedDataRejected)) {
  process.once("exit", () => require("node:fs").writeFileSync(out, ctl.createCachedData()));
}
run(ctl, "ctl.cjs");
