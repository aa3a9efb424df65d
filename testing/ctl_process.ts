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

/** Starts ctl without waiting for it, for tests that signal it. */
export type CtlSpawn = (
  args: string[],
  options?: { env?: Record<string, string>; stdin?: boolean },
) => Deno.ChildProcess;

import { userEnv } from "./tools.ts";
import type { EmulatorProcess } from "./emulator_process.ts";

const MAIN = new URL("../cli/main.ts", import.meta.url).pathname;
export const DENO_CTL = [Deno.execPath(), "run", "-A", MAIN];

/**
 * A runner for `command` (default: `deno run -A cli/main.ts`) whose environment holds only
 * PATH, HOME, the config file in `configDir` and what each call adds.
 */
export function ctlRunner(configDir: string, command: string[] = DENO_CTL): Ctl {
  const spawn = ctlSpawner(configDir, command);
  return async (args, options = {}) => {
    const child = spawn(args, { ...options, stdin: options.stdin !== undefined });

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

/** Like `ctlRunner`, but returns the running process. */
export function ctlSpawner(configDir: string, command: string[] = DENO_CTL): CtlSpawn {
  return (args, options = {}) => {
    const base = { ...userEnv(), STORE_CONFIG_FILE: `${configDir}/config.toml` };
    return new Deno.Command(command[0], {
      args: [...command.slice(1), ...args],
      env: { ...base, ...options.env },
      clearEnv: true,
      cwd: configDir,
      stdin: options.stdin ? "piped" : "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  };
}

/** What a `ctl` scenario works with: ctl itself, the emulator it talks to, and a folder of its own. */
export interface World {
  readonly ctl: Ctl;
  readonly spawn: CtlSpawn;

  /** How to start ctl (for scripts that call it by name). */
  readonly command: string[];
  readonly emulator: EmulatorProcess;
  /** Holds the config file and test files. */
  readonly dir: string;
  readonly caFile: string;
}

/** `ctl cloud database create … --wait` in `sub`, then `more` flags. */
export const createWaitingArgv = (sub: string, name: string, gb: number, ...more: string[]) => [
  "cloud",
  "database",
  "create",
  "--subscription",
  sub,
  "--name",
  name,
  "--dataset-size-gb",
  String(gb),
  "--wait",
  ...more,
];
