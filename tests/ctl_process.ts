/**
 * Runs the real `ctl` as a subprocess with an isolated environment, for end-to-end tests.
 *
 * @module
 */
export interface CtlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export type Ctl = (args: string[], options?: { env?: Record<string, string>; stdin?: string }) => Promise<CtlResult>;

const MAIN = new URL("../cli/main.ts", import.meta.url).pathname;
export const DENO_CTL = [Deno.execPath(), "run", "-A", MAIN];

/**
 * A runner for `command` (default: `deno run -A cli/main.ts`) whose environment holds only
 * PATH, HOME, the config file in `configDir` and what each call adds.
 */
export function ctlRunner(configDir: string, command: string[] = DENO_CTL): Ctl {
  return async (args, options = {}) => {
    const base: Record<string, string> = {
      PATH: Deno.env.get("PATH") ?? "",
      HOME: Deno.env.get("HOME") ?? "/root",
      STORE_CONFIG_FILE: `${configDir}/config.toml`,
    };
    for (const name of ["DENO_DIR", "XDG_CACHE_HOME"]) {
      const value = Deno.env.get(name);
      if (value) base[name] = value;
    }
    const child = new Deno.Command(command[0], {
      args: [...command.slice(1), ...args],
      env: { ...base, ...options.env },
      clearEnv: true,
      stdin: options.stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    if (options.stdin !== undefined) {
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(options.stdin));
      await writer.close();
    }
    const out = await child.output();
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
  };
}
