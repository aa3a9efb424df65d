/**
 * Finds a system tool a test needs. Under `CI=true` a missing tool fails the test; elsewhere
 * the test is passed over with a note, so a laptop without redis-server can still run the rest.
 *
 * @module
 */
export async function requireTool(name: string): Promise<string | undefined> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    const path = `${dir}/${name}`;
    try {
      if ((await Deno.stat(path)).isFile) return path;
    } catch { /* not in this directory */ }
  }
  const message = `${name} is not installed; install it (Debian: apt-get install -y ${name}) to run this test`;
  if (Deno.env.get("CI") === "true") throw new Error(message);
  console.warn(`skipped: ${message}`);
  return undefined;
}
