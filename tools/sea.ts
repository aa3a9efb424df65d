/**
 * Builds `ctl` as a Node single executable application: `npm run build:binary` (or
 * `deno run -A tools/sea.ts [outDir]`) writes `dist/bin/ctl-node-<os>-<arch>`, the `node` on
 * `PATH` with `ctl` inside. It needs nothing from the network but `postject`, a pinned
 * devDependency (`npm ci` installs it; without it `npx` fetches that version from npm), so it is
 * the standalone binary that builds offline, unlike `deno task compile`.
 *
 * - `ctl` is bundled into one CommonJS script with every library inside (Node's embedded script
 *   can `require()` built-in modules only), except the keyring's native addon, which it loads
 *   from a `node_modules` beside the binary when one is there and otherwise says, when a
 *   `keyring:` value is used, that it has none.
 * - `useCodeCache`: Node compiles the script at build time and stores V8's code beside it, so a
 *   start skips most of the parsing (start-up: `bench/binary_bench.ts`). Node does not support
 *   `import()` in such a script: its `import("x")` calls become `__import("x")`, answered with
 *   `require`.
 * - Linux only: macOS needs its signature removed and made again around the injection, Windows
 *   a PE resource; neither can be tried here. The binary is the host's `node`, stripped of its
 *   symbols where `strip` exists.
 *
 * @module
 */
import { denoBundle, EXTERNAL } from "./bundle.ts";

const root = new URL("..", import.meta.url).pathname;

/** The sentinel Node looks for to know that it carries an application (Node's documented value). */
const FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

const ARCH: Record<string, string> = { x86_64: "x64", aarch64: "arm64" };

/** The binary's file name: `ctl-node-linux-x64` on this kind of machine. */
export const SEA_NAME = `ctl-node-${Deno.build.os}-${ARCH[Deno.build.arch] ?? Deno.build.arch}`;

/** Defines `__import` for the script: built-in modules, and the native addons from beside the binary. */
function prelude(addons: Record<string, string>): string {
  return `var __import = (specifier) => new Promise((resolve) => {
  const loaded = specifier.startsWith("node:") ? require(specifier) : __addon(specifier);
  resolve({ ...loaded, default: loaded });
});
function __addon(specifier) {
  try {
    return require("node:module").createRequire(process.execPath)(specifier);
  } catch (error) {
    if (error?.code !== "MODULE_NOT_FOUND") throw error;
    const install = ${JSON.stringify(addons)}[specifier] ?? specifier;
    throw new Error(specifier + " is not part of this binary (a native addon): put a node_modules folder that has " +
      "it beside the binary (npm install " + install + " there), or give the value another way", { cause: error });
  }
}
`;
}

/**
 * Turns the script's `import("x")` into `__import("x")`; throws on a specifier that is neither a
 * built-in module nor an external addon (everything else must be inside the script).
 */
export function rewriteForSea(script: string): string {
  return script.replace(/\bimport\("([^"]+)"\)/g, (_, specifier: string) => {
    if (specifier.startsWith("node:") || EXTERNAL.includes(specifier)) return `__import("${specifier}")`;
    throw new Error(`the single executable's script imports "${specifier}" on demand: it should be bundled in`);
  });
}

/** Options of `buildSea`. */
export interface SeaOptions {
  /** The Node to embed (default: `node` on `PATH`). */
  readonly node?: string;
  /** Store V8's code with the script (default true; false only to measure what it saves). */
  readonly codeCache?: boolean;
  /** The file name in `outDir` (default `SEA_NAME`). */
  readonly name?: string;
}

/** Builds the binary into `outDir` (made if missing); returns its path. */
export async function buildSea(outDir: string, options: SeaOptions = {}): Promise<string> {
  const { node = which("node"), codeCache = true, name = SEA_NAME } = options;
  if (Deno.build.os !== "linux") {
    throw new Error(`tools/sea.ts builds on Linux only (this is ${Deno.build.os}): see its module comment`);
  }
  if (!node) throw new Error("node is not on PATH: install Node 20.12 or later (Debian: apt-get install -y nodejs)");
  const manifest = JSON.parse(await Deno.readTextFile(`${root}package.json`));
  const work = await Deno.makeTempDir({ prefix: "storectl-sea-" });
  try {
    await denoBundle(["--format", "cjs", "--output", `${work}/ctl.cjs`, `${root}cli/main.ts`]);
    const addons = Object.fromEntries(
      EXTERNAL.map((name) => [name, `${name}@${manifest.optionalDependencies?.[name] ?? "latest"}`]),
    );
    await Deno.writeTextFile(
      `${work}/main.cjs`,
      prelude(addons) + rewriteForSea(await Deno.readTextFile(`${work}/ctl.cjs`)),
    );
    await Deno.writeTextFile(
      `${work}/sea-config.json`,
      JSON.stringify({
        main: "main.cjs",
        output: "sea.blob",
        disableExperimentalSEAWarning: true,
        useCodeCache: codeCache,
      }),
    );
    // The blob's code cache is V8's for this node: the same binary must run it.
    const base = await Deno.realPath(node);
    await run(base, ["--experimental-sea-config", "sea-config.json"], work);
    const binary = `${work}/ctl`;
    await Deno.copyFile(base, binary);
    await Deno.chmod(binary, 0o755);
    if (which("strip")) await run("strip", [binary], work);
    const [postject, ...prefix] = await postjectCommand(manifest.devDependencies?.postject);
    await run(postject, [...prefix, binary, "NODE_SEA_BLOB", `${work}/sea.blob`, "--sentinel-fuse", FUSE], work);

    await Deno.mkdir(outDir, { recursive: true });
    const target = `${outDir}/${name}`;
    await Deno.copyFile(binary, `${target}.partial`);
    await Deno.rename(`${target}.partial`, target);
    return target;
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

/** `postject` from `node_modules` (npm ci), else the pinned version through `npx`. */
async function postjectCommand(version: string | undefined): Promise<string[]> {
  const local = `${root}node_modules/.bin/postject`;
  if (await Deno.stat(local).then(() => true, () => false)) return [local];
  const npx = which("npx");
  if (!npx || !version) {
    throw new Error(`postject is missing (${local}): run npm ci, which installs the version package.json pins`);
  }
  return [npx, "--yes", `postject@${version}`];
}

function which(name: string): string | undefined {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (Deno.statSync(`${dir}/${name}`).isFile) return `${dir}/${name}`;
    } catch { /* not here */ }
  }
  return undefined;
}

async function run(command: string, args: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command(command, { args, cwd, stdout: "piped", stderr: "piped" }).output();
  if (out.code !== 0) {
    const text = new TextDecoder().decode(new Uint8Array([...out.stdout, ...out.stderr]));
    throw new Error(`${command} ${args.join(" ")} failed (exit ${out.code}):\n${text}`);
  }
}

if (import.meta.main) {
  const path = await buildSea(Deno.args[0] ?? `${root}dist/bin`);
  console.log(`${path} (${((await Deno.stat(path)).size / 1e6).toFixed(1)} MB)`);
}
