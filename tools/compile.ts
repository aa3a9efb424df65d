/**
 * Builds `ctl` as standalone executables with `deno compile`, one per platform, into `dist/bin/`:
 * `deno task compile` (all five), `deno task compile linux-x64 macos-arm64` (some), `--out <dir>`.
 *
 * `deno compile` joins the program to Deno's runtime build (`denort`) for the target, which it
 * downloads once per version and target into `$DENO_DIR/dl/` (or takes from `DENORT_BIN`, for the
 * host's target): the first build of a target needs the network.
 *
 * The module graph is the one `deno run` would load with no `"unstable"` settings: `deno.json`'s
 * `lazy-dynamic-imports` leaves every `import("./x.ts")` out of the graph, so `deno compile`
 * would embed none of the commands. Only the npm packages that graph reaches are embedded
 * (with the keyring addon's build for the target).
 *
 * @module
 */

/**
 * What `ctl` may do, baked into each binary (no `-A`, no prompt). Each is needed, and nothing
 * else is: `tests/binary_permissions_test.ts` runs every `ctl` scenario with exactly these, and
 * shows each one missed. Not granted: `--allow-sys` (nothing reads the host's name, memory or
 * load) and `--allow-import` (everything is embedded).
 */
export const PERMISSIONS: readonly string[] = [
  // The APIs, at whatever host and port a profile or `--url` names.
  "--allow-net",
  // The config file, CA certificates, JSON bodies (`-d @file`), packages to optimize or upload,
  // the state of `--no-wait` runs; also the binary's own path (`Deno.execPath()`).
  "--allow-read",
  // The config file (`profile set`), downloads wherever `--file` points, `--no-wait` state.
  "--allow-write",
  // The environment as a whole: `STORE_*` settings, `HOME`, proxies, `NO_COLOR`, `${VAR}` in
  // profiles (any name), read once at start.
  "--allow-env",
  // `ctl` itself, detached, for `--no-wait`; and `df` for the free space before a download
  // (without it the check is skipped). The binary's path is known only where it is installed.
  "--allow-run",
  // The keyring addon (`@napi-rs/keyring`, Node-API), loaded only for a `keyring:` value.
  "--allow-ffi",
];

/** The platforms built, by the name in the binary's file name, with Deno's target triple. */
export const TARGETS = {
  "linux-x64": "x86_64-unknown-linux-gnu",
  "linux-arm64": "aarch64-unknown-linux-gnu",
  "macos-x64": "x86_64-apple-darwin",
  "macos-arm64": "aarch64-apple-darwin",
  "windows-x64": "x86_64-pc-windows-msvc",
} as const;

/** A platform `ctl` is compiled for. */
export type TargetName = keyof typeof TARGETS;

const root = new URL("..", import.meta.url).pathname;

/**
 * How the module graph is read: `deno.json` without its "unstable" list (see the module comment),
 * that is its import map and `deno.lock`, unchanged. `deno run` with these loads what a binary holds.
 */
export const GRAPH_ARGS: readonly string[] = [
  "--no-config",
  "--import-map",
  `${root}deno.json`,
  "--lock",
  `${root}deno.lock`,
  "--frozen",
  "--node-modules-dir=none",
];

/** `ctl-linux-x64`, `ctl-windows-x64.exe`, … */
export function binaryName(target: TargetName): string {
  return `ctl-${target}${target.startsWith("windows") ? ".exe" : ""}`;
}

/** The target this machine runs, if it is one of `TARGETS`. */
export function hostTarget(): TargetName | undefined {
  return (Object.keys(TARGETS) as TargetName[]).find((name) => TARGETS[name] === Deno.build.target);
}

/** The arguments of `deno compile` for `target`, writing `output`. */
export function compileArgs(target: TargetName, output: string): string[] {
  return [
    "compile",
    "--quiet",
    ...GRAPH_ARGS,
    "--exclude-unused-npm",
    // `deno task check` type-checks with the project's compiler options; --no-config has none.
    "--no-check",
    ...PERMISSIONS,
    "--target",
    TARGETS[target],
    "--output",
    output,
    `${root}cli/main.ts`,
  ];
}

/** Compiles `ctl` for `target` into `outDir`; returns the binary's path. */
export async function compileCtl(target: TargetName, outDir: string): Promise<string> {
  await Deno.mkdir(outDir, { recursive: true });
  const output = `${outDir}/${binaryName(target)}`;
  // DENORT_BIN is a runtime build for this machine: another target's must come from its download.
  const env = Deno.env.toObject();
  if (target !== hostTarget()) delete env.DENORT_BIN;
  const result = await new Deno.Command(Deno.execPath(), {
    args: compileArgs(target, output),
    env,
    clearEnv: true,
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (result.code !== 0) {
    const text = new TextDecoder().decode(result.stderr).trim();
    const offline = /denort|dl\.deno\.land|dns error|error sending request/i.test(text)
      ? `\nThe first build of a target downloads Deno's runtime build (denort) for it: run this where ` +
        `dl.deno.land answers, or set DENORT_BIN to a denort binary of Deno ${Deno.version.deno} for this machine.`
      : "";
    throw new Error(`deno compile of ctl for ${target} failed (exit ${result.code}):\n${text}${offline}`);
  }
  return output;
}

/** Where `deno compile` keeps the runtime build of `target` once downloaded. */
export async function cachedRuntimeBuild(target: TargetName): Promise<string> {
  const info = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped", stderr: "null" })
    .output();
  const { denoDir } = JSON.parse(new TextDecoder().decode(info.stdout)) as { denoDir: string };
  return `${denoDir}/dl/release/v${Deno.version.deno}/denort-${TARGETS[target]}.zip`;
}

/**
 * Whether `deno compile` can have the runtime build of `target` here: `DENORT_BIN` (host target
 * only), a copy already downloaded, or the download site answering within `timeoutMs`. Returns
 * `undefined` when it can, else why not.
 */
export async function whyNoRuntimeBuild(target: TargetName, timeoutMs = 5000): Promise<string | undefined> {
  const denort = Deno.env.get("DENORT_BIN");
  if (denort && target === hostTarget()) {
    return await Deno.stat(denort).then(() => undefined, () => `DENORT_BIN names ${denort}, which does not exist`);
  }
  const cached = await cachedRuntimeBuild(target);
  if (await Deno.stat(cached).then(() => true, () => false)) return undefined;
  const url = `https://dl.deno.land/release/v${Deno.version.deno}/denort-${TARGETS[target]}.zip`;
  try {
    const response = await fetch(url, { method: "HEAD", signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
    if (response.ok) return undefined;
    return `${url} answered ${response.status}`;
  } catch (error) {
    return `no runtime build of Deno (denort) for ${TARGETS[target]} can be had: DENORT_BIN is unset, none is ` +
      `in ${cached}, and ${url} cannot be reached (${causeOf(error)})`;
  }
}

/** The innermost message of a failed fetch ("dns error: …" rather than "fetch failed"). */
function causeOf(error: unknown): string {
  let inner = error as Error;
  while (inner.cause instanceof Error) inner = inner.cause;
  return inner.message.split("\n")[0].replace(/^.*: (?=dns error|tcp connect)/, "");
}

if (import.meta.main) {
  const args = [...Deno.args];
  const out = args.indexOf("--out");
  const outDir = out >= 0 ? args.splice(out, 2)[1] : `${root}dist/bin`;
  const unknown = args.filter((name) => !(name in TARGETS));
  if (unknown.length) {
    console.error(`Unknown target ${unknown.join(", ")}: choose from ${Object.keys(TARGETS).join(", ")}`);
    Deno.exit(2);
  }
  const targets = (args.length ? args : Object.keys(TARGETS)) as TargetName[];
  for (const target of targets) {
    try {
      const path = await compileCtl(target, outDir);
      console.log(`${path} (${((await Deno.stat(path)).size / 1e6).toFixed(1)} MB)`);
    } catch (error) {
      console.error((error as Error).message);
      Deno.exit(1);
    }
  }
}
