/**
 * Deno starts its Node-compatibility layer (20–50 ms) on the first `node:` import or the first
 * touch of `process`/`Buffer`; nothing on `ctl`'s path may do either. Checked statically on the
 * module graph and at run time with traps on those globals.
 *
 * @module
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { startEmulator } from "../testing/emulator_process.ts";
import { userEnv } from "../testing/tools.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const MAIN = `${ROOT}cli/main.ts`;

/** Loaded on Deno's path only for options that need them (undici: --insecure; yaml, cli-table3: formats). */
const OPTIONAL = [/\/lib\/runtime\/node\.ts$/, /\/lib\/runtime\/undici\.ts$/, /^npm:/];
const ALLOWED_PACKAGES = ["@stricli/core", "@jmespath-community/jmespath", "smol-toml"];

interface Info {
  modules: { specifier: string; dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[] }[];
}

Deno.test("the module graph of cli/main.ts on Deno has no node: module and only small pure-ESM packages", async () => {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json", MAIN], stdout: "piped" }).output();
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as Info;
  const modules = new Map(info.modules.map((m) => [m.specifier, m]));
  const reached = new Set<string>();
  const visit = (specifier: string) => {
    if (reached.has(specifier)) return;
    reached.add(specifier);
    for (const dep of modules.get(specifier)?.dependencies ?? []) {
      const target = dep.code?.specifier;
      if (!target) continue; // a type-only import
      if (dep.isDynamic && OPTIONAL.some((r) => r.test(target))) continue;
      visit(target);
    }
  };
  visit(`file://${MAIN}`);
  assertEquals([...reached].filter((s) => s.startsWith("node:")), []);
  const packages = [...reached].filter((s) => s.startsWith("npm:")).map((s) =>
    s.replace(/^npm:\/?(@?[^@]+)@.*$/, "$1")
  );
  assertEquals(packages.filter((p) => !ALLOWED_PACKAGES.includes(p)), []);
});

Deno.test("ctl on Deno never touches process, Buffer or the other Node globals", async () => {
  await using emulator = await startEmulator(["--rate-limit-per-minute", "0"]);
  const dir = await Deno.makeTempDir();
  try {
    const trap = `${dir}/trap.ts`;
    await Deno.writeTextFile(
      trap,
      `for (const name of ["process", "Buffer", "global", "setImmediate", "clearImmediate"]) {
  const d = Object.getOwnPropertyDescriptor(globalThis, name)!;
  Object.defineProperty(globalThis, name, {
    configurable: true,
    get() { console.error("TOUCHED " + name); return d.get!.call(this); },
    set(v) { d.set!.call(this, v); },
  });
}\n`,
    );
    const env = {
      ...userEnv(),

      STORE_CONFIG_FILE: `${dir}/config.toml`,
      STORE_ENTERPRISE_URL: emulator.enterpriseUrl,
      STORE_ENTERPRISE_USER: "admin@example.com",
      STORE_ENTERPRISE_PASSWORD: "demo-password",
      STORE_CLOUD_API_URL: emulator.cloudUrl,
      STORE_CLOUD_API_KEY: "demo-key",
      STORE_CLOUD_API_SECRET: "demo-secret",
    };
    for (
      const args of [
        ["--help"],
        ["profile", "path"],
        ["api", "enterprise", "get", "/v1/bdbs", "-q", "[].name"],
        ["api", "cloud", "get", "/regions", "-o", "json"],
        ["api", "enterprise", "get", "/v1/nope"],
      ]
    ) {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--preload", trap, MAIN, ...args],
        env,
        clearEnv: true,
        stdout: "null",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert(!stderr.includes("TOUCHED"), `ctl ${args.join(" ")}: ${stderr}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ctl --help on Deno reads no command module: dynamic imports load when they run", async () => {
  // Deno otherwise fetches every statically written `import()` of the whole command tree before
  // the first line runs (~10 ms for ctl's): `"unstable": ["lazy-dynamic-imports"]` in deno.json.
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--log-level=debug", MAIN, "--help"],
    env: userEnv(),
    clearEnv: true,
    cwd: ROOT,
    stdout: "null",
    stderr: "piped",
  }).output();
  const fetched = [...new TextDecoder().decode(out.stderr).matchAll(/fetch_no_follow - specifier: file:\/\/(\S+)/g)]
    .map(([, path]) => path.slice(ROOT.length));
  assert(fetched.includes("cli/main.ts"), `the debug log names no fetched module:\n${fetched.join("\n")}`);
  assertEquals(
    fetched.filter((path) => /^cli\/commands\/.+\/|^lib\/(cloud|enterprise|http|support_package)\//.test(path)),
    [],
  );
});
