import process from "node:process";

/** Starts this program again with `args`, detached (it outlives this process), stdio closed. */
export async function nodeLaunchDetached(args: readonly string[]): Promise<number> {
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1], ...args], {
    cwd: process.cwd(),
    detached: true,
    stdio: "ignore",
  });
  child.unref();
  return child.pid ?? 0;
}
