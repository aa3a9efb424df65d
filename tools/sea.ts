/**
 * Builds `ctl` as a Node single executable application: `npm run build:binary` (or
 * `deno run -A tools/sea.ts [outDir]`) writes `dist/bin/ctl-node-<os>-<arch>`, the `node` on
 * `PATH` with `ctl` inside. It needs nothing from the network but `postject`, pinned in
 * `package.json` (an optional dependency, so that Deno leaves `deno.lock` alone; `npm ci`
 * installs it, and without it `npx` fetches that version from npm): this standalone binary
 * builds offline, unlike `deno task compile`'s.
 *
 * - `ctl` is bundled into one CommonJS script, the same as the Node bundle's `lib/ctl.cjs`: the
 *   large libraries it imports on demand (`CTL_VENDOR` in `tools/bundle.ts`: undici, YAML,
 *   tables, TOML, the MCP SDK…) stay out of it, one script per package, each an asset that the
 *   entry (`tools/sea_main.cjs`) compiles the first time it is imported. With them inside, every
 *   start read and compiled 2.1 MB instead of 0.6 MB and took longer than the bundle's.
 * - Such a binary's entry can `require()` built-in modules only and cannot `import()`: the
 *   scripts' `import("x")` calls become `__import("x")`, answered by the entry. The keyring's
 *   native addon stays out: the entry loads it from a `node_modules` beside the binary when there
 *   is one, and otherwise says so when a `keyring:` value is used.
 * - The scripts are stored already wrapped in the function the entry calls. `ctl`'s is ASCII (the
 *   bundler escapes the rest; the build checks), which the entry reads as latin1 straight from
 *   the binary's memory: no UTF-8 decoding, copy or concatenation of 0.6 MB before compiling. The
 *   libraries' scripts have UTF-8 in their comments and are decoded as such.
 * - Code cache: the script is compiled with V8's code cache of a training run (an API call with
 *   a query, against a stand-in server) made by the binary itself at build time, then built in; a
 *   build whose cache V8 would reject fails. That cache holds the functions the run compiled,
 *   which Node's own `useCodeCache` (on, for the entry) does not: it caches what compiling the top
 *   level compiles. Start-up: `bench/binary_bench.ts`.
 * - Linux only: macOS needs its signature removed and made again around the injection, Windows
 *   a PE resource; neither can be tried here. The binary is the host's `node` (Node 20.16 or
 *   later: `process.getBuiltinModule`), stripped of its symbols where `strip` exists.
 *
 * @module
 */
import { CTL_VENDOR, denoBundle, EXTERNAL, vendorName } from "./bundle.ts";

const root = new URL("..", import.meta.url).pathname;

/** The sentinel Node looks for to know that it carries an application (Node's documented value). */
const FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

const ARCH: Record<string, string> = { x86_64: "x64", aarch64: "arm64" };

/** The binary's file name: `ctl-node-linux-x64` on this kind of machine. */
export const SEA_NAME = `ctl-node-${Deno.build.os}-${ARCH[Deno.build.arch] ?? Deno.build.arch}`;

/**
 * Turns a script's `import("x")` into `__import("x")`; throws on a specifier that is neither a
 * built-in module, an on-demand library (`CTL_VENDOR`) nor an external addon (everything else
 * must be inside the script).
 */
export function rewriteForSea(script: string): string {
  return script.replace(/\bimport\("([^"]+)"\)/g, (_, specifier: string) => {
    if (specifier.startsWith("node:") || CTL_VENDOR.includes(specifier) || EXTERNAL.includes(specifier)) {
      return `__import("${specifier}")`;
    }
    throw new Error(`the single executable's script imports "${specifier}" on demand: it should be bundled in`);
  });
}

/** A script as the binary stores it: rewritten for the entry and wrapped in the function it calls. */
export function seaScript(script: string): string {
  return `(function (exports, require, module, __filename, __dirname, __import) {${rewriteForSea(script)}\n})`;
}

/**
 * The on-demand libraries' scripts, one per package (the MCP SDK's four entries share their
 * modules): each script's asset name and the specifiers it answers.
 */
export function vendorScripts(): Map<string, string[]> {
  const scripts = new Map<string, string[]>();
  for (const specifier of CTL_VENDOR) {
    const name = `vendor/${vendorName(packageOf(specifier))}.cjs`;
    scripts.set(name, [...scripts.get(name) ?? [], specifier]);
  }
  return scripts;
}

/** The npm package of `specifier`: `@modelcontextprotocol/sdk` for `@modelcontextprotocol/sdk/types.js`. */
export function packageOf(specifier: string): string {
  return specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");
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
  if (!node) throw new Error("node is not on PATH: install Node 20.16 or later (Debian: apt-get install -y nodejs)");
  const version = new TextDecoder().decode(
    (await new Deno.Command(node, { args: ["--version"], stdout: "piped" })
      .output()).stdout,
  ).trim();
  const [major, minor] = version.slice(1).split(".").map(Number);
  if (major < 20 || (major === 20 && minor < 16)) {
    throw new Error(
      `${node} is Node ${version}: the single executable needs 20.16 or later (process.getBuiltinModule)`,
    );
  }
  const manifest = JSON.parse(await Deno.readTextFile(`${root}package.json`));
  const work = await Deno.makeTempDir({ prefix: "storectl-sea-" });
  try {
    await denoBundle([
      "--format",
      "cjs",
      ...CTL_VENDOR.flatMap((name) => ["--external", name]),
      "--output",
      `${work}/bundle.cjs`,
      `${root}cli/main.ts`,
    ]);
    const script = await Deno.readTextFile(`${work}/bundle.cjs`);
    if (/[\u0080-\uffff]/.test(script)) {
      throw new Error("ctl.cjs has non-ASCII characters: the entry reads it as latin1");
    }
    await Deno.writeTextFile(`${work}/ctl.cjs`, seaScript(script));
    const assets: Record<string, string> = { "ctl.cjs": "ctl.cjs", "sea.json": "sea.json" };
    const vendor: Record<string, string> = {};
    await Deno.mkdir(`${work}/vendor`);
    await Promise.all([...vendorScripts()].map(async ([name, specifiers]) => {
      // Each specifier's module is initialised when it is first imported, not when the script runs.
      const loads = specifiers.map((s) => `  ${JSON.stringify(s)}: () => import(${JSON.stringify(s)}),\n`);
      await Deno.writeTextFile(`${work}/${name}.ts`, `export const load = {\n${loads.join("")}};\n`);
      await denoBundle(["--format", "cjs", "--output", `${work}/${name}.bundle`, `${work}/${name}.ts`]);
      await Deno.writeTextFile(`${work}/${name}`, seaScript(await Deno.readTextFile(`${work}/${name}.bundle`)));
      assets[name] = name;
      for (const specifier of specifiers) vendor[specifier] = name;
    }));
    const addons = EXTERNAL.map((name) => [name, `${name}@${manifest.optionalDependencies?.[name] ?? "latest"}`]);
    await Deno.writeTextFile(`${work}/sea.json`, JSON.stringify({ addons: Object.fromEntries(addons), vendor }));
    await Deno.copyFile(`${root}tools/sea_main.cjs`, `${work}/sea_main.cjs`);
    // The code caches are V8's for this node: the same binary makes and runs them.
    await Deno.copyFile(await Deno.realPath(node), `${work}/node`);
    await Deno.chmod(`${work}/node`, 0o755);
    if (which("strip")) await run("strip", [`${work}/node`], work);
    const postject = await postjectCommand(
      manifest.devDependencies?.postject ?? manifest.optionalDependencies?.postject,
    );
    const inject = async (binary: string) => {
      await Deno.writeTextFile(
        `${work}/sea-config.json`,
        JSON.stringify({
          main: "sea_main.cjs",
          output: "sea.blob",
          disableExperimentalSEAWarning: true,
          useCodeCache: codeCache,
          assets,
        }),
      );
      await run(`${work}/node`, ["--experimental-sea-config", "sea-config.json"], work);
      await Deno.copyFile(`${work}/node`, binary);
      await run(
        postject[0],
        [...postject.slice(1), binary, "NODE_SEA_BLOB", "sea.blob", "--sentinel-fuse", FUSE],
        work,
      );
    };

    const binary = `${work}/ctl`;
    await inject(binary);
    if (codeCache) {
      await train(binary, `${work}/ctl.cache`, work);
      assets["ctl.cache"] = "ctl.cache";
      await inject(binary);
      await train(binary, `${work}/rejected.cache`, work);
      if (await Deno.stat(`${work}/rejected.cache`).then(() => true, () => false)) {
        throw new Error("V8 rejected the code cache the binary was built with: its node differs from the one that ran");
      }
    }
    await Deno.mkdir(outDir, { recursive: true });
    const target = `${outDir}/${name}`;
    await Deno.copyFile(binary, `${target}.partial`);
    await Deno.rename(`${target}.partial`, target);
    return target;
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

/**
 * Runs `binary` for an API call with a query, against a stand-in that answers every request with
 * a list, asking it to write the code cache of that run to `out` if it has none it can use.
 */
async function train(binary: string, out: string, work: string): Promise<void> {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => Response.json([{ uid: 1, name: "db" }]),
  );
  try {
    const result = await new Deno.Command(binary, {
      args: ["api", "enterprise", "get", "/v1/bdbs", "-q", "[].name"],
      env: {
        PATH: Deno.env.get("PATH") ?? "",
        HOME: work,
        STORE_CONFIG_FILE: `${work}/none.toml`,
        STORE_ENTERPRISE_URL: `http://127.0.0.1:${server.addr.port}`,
        STORE_ENTERPRISE_USER: "trainer",
        STORE_ENTERPRISE_PASSWORD: "trainer",
        STORECTL_SEA_CODE_CACHE_OUT: out,
      },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (result.code !== 0) {
      throw new Error(
        `the binary's training run failed (exit ${result.code}): ${new TextDecoder().decode(result.stderr)}`,
      );
    }
  } finally {
    await server.shutdown();
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
