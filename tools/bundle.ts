/**
 * Builds the Node bundles: `deno run -A tools/bundle.ts [outDir]` (default `dist/`).
 *
 * One code-split build of all entries: shared code is emitted once, and what loads lazily
 * (undici, YAML, tables, the tar library) stays in chunks that Node parses only when used,
 * which keeps `ctl` start-up short. Each entry gets an executable launcher
 * (`dist/ctl.mjs`, …) with a `#!/usr/bin/env node` line for `package.json` `bin`.
 *
 * Deno 2.9.5's `deno bundle` has no `--platform node`; its default output runs on Node all the
 * same (CommonJS packages are loaded through `createRequire`), and the tests prove it.
 *
 * @module
 */
export const ENTRIES = {
  "ctl.mjs": "cli/main.ts",
  "emulator.mjs": "server/emulator/main.ts",
  "server.mjs": "server/main.ts",
};

const root = new URL("..", import.meta.url).pathname;

/** Bundles every entry into `outDir`. */
export async function bundleAll(outDir: string): Promise<void> {
  await Deno.remove(`${outDir}/lib`, { recursive: true }).catch(() => {});
  await bundle(Object.values(ENTRIES), `${outDir}/lib`);
  for (const [name, entry] of Object.entries(ENTRIES)) {
    const target = `./lib/${entry.replace(/\.ts$/, ".js")}`;
    await Deno.writeTextFile(`${outDir}/${name}`, `#!/usr/bin/env node\nimport "${target}";\n`, { mode: 0o755 });
  }
}

/**
 * Bundles `entries` (paths relative to the repository root) for Node into `outDir`, code-split:
 * each entry becomes `outDir/<its path under the entries' common folder>.js`.
 */
export async function bundle(entries: readonly string[], outDir: string): Promise<void> {
  const result = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--code-splitting",
      // The keyring is a native addon: Node loads it from node_modules (a package.json dependency).
      "--external",
      "@napi-rs/keyring",
      "--outdir",
      outDir,
      ...entries.map((entry) => `${root}${entry}`),
    ],
    cwd: root,
    stderr: "piped",
  }).output();
  if (result.code !== 0) throw new Error(`bundling failed:\n${new TextDecoder().decode(result.stderr)}`);
}

if (import.meta.main) {
  const outDir = Deno.args[0] ?? `${root}dist`;
  await bundleAll(outDir);
  console.log(`bundled ${Object.keys(ENTRIES).join(", ")} into ${outDir}`);
}
