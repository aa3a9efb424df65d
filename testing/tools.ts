/**
 * System tools that tests need. A test declares them with `ignore: missingTools(...)`: outside
 * CI a missing tool makes the test report as skipped, with a tip naming the Debian package;
 * under `CI=true` the test runs anyway and fails on `requireTool()` with the same tip.
 *
 * @example
 * ```ts
 * Deno.test("talks to redis", { ignore: missingTools("redis-server") }, () => {
 *   const redis = requireTool("redis-server");
 * });
 * ```
 *
 * @module
 */

/** The Debian package that installs each tool, where its name differs. */
const PACKAGES: Readonly<Record<string, string>> = {
  "dbus-run-session": "dbus",
  "gnome-keyring-daemon": "gnome-keyring",
  node: "nodejs",
  promtool: "prometheus",
  "redis-cli": "redis-tools",
  script: "bsdutils",
};

/** The tool's path on PATH, or undefined. */
export function toolPath(name: string): string | undefined {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (Deno.statSync(`${dir}/${name}`).isFile) return `${dir}/${name}`;
    } catch { /* not in this directory */ }
  }
  return undefined;
}

/** Why a test cannot run, naming the Debian package to install. */
export function tip(name: string): string {
  return `${name} is not installed; install it (Debian: apt-get install -y ${PACKAGES[name] ?? name}) to run this test`;
}

/** The tool's path; throws naming the package to install when it is missing. */
export function requireTool(name: string): string {
  const path = toolPath(name);
  if (!path) throw new Error(tip(name));
  return path;
}

/** Whether to skip a test needing `tools`: only outside CI, and only when one is missing. */
export function missingTools(...tools: string[]): boolean {
  const missing = tools.filter((name) => !toolPath(name));
  if (missing.length === 0 || Deno.env.get("CI") === "true") return false;
  for (const name of missing) console.warn(`skipped: ${tip(name)}`);
  // tools/run_tests.ts names the reasons in its summary.
  const summary = Deno.env.get("STORE_TEST_SKIPS");
  if (summary) Deno.writeTextFileSync(summary, missing.map((name) => `${tip(name)}\n`).join(""), { append: true });
  return true;
}

/**
 * The environment of a subprocess that stands for a user: PATH and HOME, and where Deno keeps
 * its module cache (so a changed HOME does not make Deno download everything again).
 */
export function userEnv(): Record<string, string> {
  const env: Record<string, string> = { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "/root" };
  for (const name of ["DENO_DIR", "XDG_CACHE_HOME"]) {
    const value = Deno.env.get(name);
    if (value) env[name] = value;
  }
  return env;
}
