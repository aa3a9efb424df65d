/**
 * Builds the Node bundles: `deno run -A tools/bundle.ts [outDir]` (default `dist/`).
 * Each gets a `#!/usr/bin/env node` line so `package.json` `bin` entries can run it.
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
  await Deno.mkdir(outDir, { recursive: true });
  for (const [name, entry] of Object.entries(ENTRIES)) {
    const out = `${outDir}/${name}`;
    const result = await new Deno.Command(Deno.execPath(), {
      // The keyring is a native addon: Node loads it from node_modules (a package.json dependency).
      args: ["bundle", "--quiet", "--external", "@napi-rs/keyring", "-o", out, `${root}${entry}`],
      cwd: root,
      env: { DENO_NO_PACKAGE_JSON: "1" },
      stderr: "piped",
    }).output();
    if (result.code !== 0) throw new Error(`bundling ${entry} failed:\n${new TextDecoder().decode(result.stderr)}`);
    await Deno.writeTextFile(out, `#!/usr/bin/env node\n${await Deno.readTextFile(out)}`, { mode: 0o755 });
  }
}

if (import.meta.main) {
  const outDir = Deno.args[0] ?? `${root}dist`;
  await bundleAll(outDir);
  console.log(`bundled ${Object.keys(ENTRIES).join(", ")} into ${outDir}`);
}
