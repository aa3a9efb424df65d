/**
 * Starts this program again with `args`, detached (it outlives this process), stdio closed.
 * `deno run` of a local `cli/main.ts` passes its checkout's `deno.json` (the import map); a
 * compiled binary reruns itself.
 */
export function denoLaunchDetached(args: readonly string[]): Promise<number> {
  const main = Deno.mainModule;
  const compiled = main.includes("deno-compile-");
  let prefix: string[] = [];
  if (!compiled) {
    const config = main.startsWith("file:") && main.endsWith("/cli/main.ts")
      ? new URL("../deno.json", main).pathname
      : undefined;
    prefix = ["run", "-A", ...(config ? ["--config", config] : []), main];
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: [...prefix, ...args],
    cwd: Deno.cwd(),
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  child.unref();
  return Promise.resolve(child.pid);
}
