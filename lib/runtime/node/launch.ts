import process from "node:process";

/** Starts this program again with `args`, detached (it outlives this process), stdio closed. */
export async function nodeLaunchDetached(args: readonly string[]): Promise<number> {
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, [...(isSea() ? [] : [...process.execArgv, process.argv[1]]), ...args], {
    cwd: process.cwd(),
    detached: true,
    stdio: "ignore",
  });
  child.unref();
  return child.pid ?? 0;
}

/**
 * Whether this is a single executable application (`tools/sea.ts`): the program itself, which
 * takes its arguments alone. (`node:sea` is asked through `getBuiltinModule`, Node ≥ 20.16:
 * bundling an import of it fails, and such a script cannot `import()`.)
 */
function isSea(): boolean {
  const sea = process.getBuiltinModule?.("node:sea") as { isSea(): boolean } | undefined;
  return sea?.isSea() ?? false;
}
