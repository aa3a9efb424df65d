/**
 * Builds the Node bundles: `deno run -A tools/bundle.ts [outDir]` (default `dist/`).
 *
 * The service and the emulator: one code-split build of ES modules; shared code is emitted
 * once and what loads lazily stays in chunks that Node parses only when used. Each gets an
 * executable launcher (`dist/server.mjs`, …) with a `#!/usr/bin/env node` line for
 * `package.json` `bin`.
 *
 * `ctl`: one CommonJS script (`lib/ctl.cjs`) that `cli/node_main.ts` (built as `dist/ctl.cjs`)
 * runs with a V8 code cache; Node 20 caches nothing for ES modules, and compiling them was most
 * of `ctl`'s start-up. Its large on-demand libraries are built apart, into `lib/vendor/`, and
 * its `import("x")` calls become `__import("x")` (relative to the script for those libraries).
 *
 * Deno 2.9.5's `deno bundle` has no `--platform node`; its default output runs on Node all the
 * same (CommonJS packages are loaded through `createRequire`), and the tests prove it.
 *
 * @module
 */
export const ENTRIES = {
  "emulator.mjs": "emulator/main.ts",
  "server.mjs": "server/main.ts",
};

/** The search index's worker thread on Node, built as `lib/search_worker.js`. */
const SEARCH_WORKER = "lib/pipelines/search_worker.ts";

/** Libraries `ctl` imports on demand that stay out of its script (they are large). */
export const CTL_VENDOR = [
  "undici",
  "yaml",
  "cli-table3",
  "smol-toml",
  "@hono/node-server",
  "@hono/node-server/utils/response",
  "modern-tar",
  "@modelcontextprotocol/sdk/server/index.js",
  "@modelcontextprotocol/sdk/types.js",
  "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js",
  "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js",
];
/** Loaded from `node_modules` at run time: a native addon. */
export const EXTERNAL = ["@napi-rs/keyring"];

const root = new URL("..", import.meta.url).pathname;

/** Bundles every entry into `outDir`. */
export async function bundleAll(outDir: string): Promise<void> {
  await Deno.remove(`${outDir}/lib`, { recursive: true }).catch(() => {});
  const entries = Object.values(ENTRIES);
  // The builds below run at once, but on an empty Deno cache (a fresh machine's `npm ci`) Deno
  // processes started together race to fill it (packages, esbuild) and all but one fail: one
  // process fills it first, and the first build, which installs esbuild, runs alone.
  await deno(["cache", ...[...entries, SEARCH_WORKER, "cli/main.ts", "cli/node_main.ts"].map((e) => `${root}${e}`)]);
  // One file beside the chunks: the runtime starts it by that name (lib/runtime/node.ts).
  await denoBundle(["--output", `${outDir}/lib/search_worker.js`, `${root}${SEARCH_WORKER}`]);
  await Promise.all([bundle(entries, `${outDir}/lib`), bundleCtl(outDir)]);
  const folder = commonFolder(entries);
  for (const [name, entry] of Object.entries(ENTRIES)) {
    const target = `./lib/${entry.slice(folder.length).replace(/\.ts$/, ".js")}`;
    await writeLauncher(`${outDir}/${name}`, `import "${target}";\n`);
  }
}

/** The folder every path is in (`"server/"` for `server/main.ts` and `emulator/main.ts`). */
function commonFolder(paths: readonly string[]): string {
  let folder = paths[0].slice(0, paths[0].lastIndexOf("/") + 1);
  while (!paths.every((path) => path.startsWith(folder))) {
    folder = folder.slice(0, folder.lastIndexOf("/", folder.length - 2) + 1);
  }
  return folder;
}

/**
 * Bundles `entries` (paths relative to the repository root) for Node into `outDir`, code-split:
 * each entry becomes `outDir/<its path under the entries' common folder>.js`.
 */
export async function bundle(entries: readonly string[], outDir: string): Promise<void> {
  await denoBundle(["--code-splitting", "--outdir", outDir, ...entries.map((entry) => `${root}${entry}`)]);
}

/** Builds `outDir/ctl.cjs`, `outDir/lib/ctl.cjs` and `outDir/lib/vendor/`. */
async function bundleCtl(outDir: string): Promise<void> {
  const stubs = await Deno.makeTempDir();
  try {
    const entries = CTL_VENDOR.map((name) => `${stubs}/${vendorName(name)}.ts`);
    await Promise.all(
      CTL_VENDOR.map((name, i) =>
        Deno.writeTextFile(entries[i], `export * from "${name}";\nexport { default } from "${name}";\n`)
      ),
    );
    await Promise.all([
      denoBundle(["--code-splitting", "--outdir", `${outDir}/lib/vendor`, ...entries]),
      denoBundle([
        "--format",
        "cjs",
        ...CTL_VENDOR.flatMap((name) => ["--external", name]),
        "--output",
        `${outDir}/lib/ctl.cjs`,
        `${root}cli/main.ts`,
      ]),
      denoBundle(["--format", "cjs", "--output", `${outDir}/ctl.cjs`, `${root}cli/node_main.ts`]),
    ]);
  } finally {
    await Deno.remove(stubs, { recursive: true });
  }
  const script = `${outDir}/lib/ctl.cjs`;
  await Deno.writeTextFile(script, rewriteImports(await Deno.readTextFile(script)));
  await writeLauncher(`${outDir}/ctl.cjs`, await Deno.readTextFile(`${outDir}/ctl.cjs`));
}

/**
 * Turns the script's `import("x")` into `__import("x")`, naming the vendored libraries by their
 * files; throws on a specifier the launcher could not import, or on non-ASCII output.
 */
export function rewriteImports(script: string): string {
  if (/[^ -~\t\n\r]/.test(script)) throw new Error("ctl.cjs has non-ASCII characters: the launcher reads it as latin1");
  return script.replace(/\bimport\("([^"]+)"\)/g, (_, specifier: string) => {
    if (CTL_VENDOR.includes(specifier)) return `__import("./vendor/${vendorName(specifier)}.js")`;
    if (specifier.startsWith("node:") || EXTERNAL.includes(specifier)) return `__import("${specifier}")`;
    throw new Error(`ctl.cjs imports "${specifier}" on demand: add it to CTL_VENDOR in tools/bundle.ts`);
  });
}

/** A vendored library's file name: `_hono_node-server` for `@hono/node-server`. */
export const vendorName = (name: string) => name.replace(/[@/]/g, "_");

async function writeLauncher(path: string, code: string): Promise<void> {
  await Deno.writeTextFile(path, `#!/usr/bin/env node\n${code}`, { mode: 0o755 });
}

/** Runs `deno bundle` from the repository root with `args`, leaving the `EXTERNAL` addons out. */
export function denoBundle(args: readonly string[]): Promise<void> {
  return deno(["bundle", "--quiet", ...EXTERNAL.flatMap((name) => ["--external", name]), ...args]);
}

/** Runs `deno <args>` from the repository root; throws with its error output when it fails. */
async function deno(args: readonly string[]): Promise<void> {
  const result = await new Deno.Command(Deno.execPath(), { args: [...args], cwd: root, stderr: "piped" }).output();
  if (result.code !== 0) throw new Error(`deno ${args[0]} failed:\n${new TextDecoder().decode(result.stderr)}`);
}

if (import.meta.main) {
  const outDir = Deno.args[0] ?? `${root}dist`;
  await bundleAll(outDir);
  console.log(`bundled ctl.cjs, ${Object.keys(ENTRIES).join(", ")} into ${outDir}`);
}
