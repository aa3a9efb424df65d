/**
 * Runs ctl on a pseudo-terminal (util-linux `script`), as a user at a terminal would, for the
 * scenarios that need one: a prompt to answer, or the terminal's width.
 *
 * @module
 */
import type { World } from "./ctl_process.ts";
import { requireTool, userEnv } from "./tools.ts";

/** What a terminal run showed. */
export interface TerminalRun {
  readonly code: number;
  /**
   * Everything the terminal showed (stdout and stderr together), lines ending in `\n`, without
   * the progress line Deno itself draws while it loads modules.
   */
  readonly shown: string;
}

/**
 * Runs ctl with `args` on a terminal `columns` wide (default: `script`'s own). Once `prompt`
 * shows, types `keys` (`\x03` is Ctrl+C).
 */
export async function atTerminal(
  w: World,
  args: string[],
  options: { columns?: number; prompt?: string; keys?: string; env?: Record<string, string> } = {},
): Promise<TerminalRun> {
  const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
  const size = options.columns ? `stty cols ${options.columns} rows 50 && exec ` : "";
  const child = new Deno.Command(requireTool("script"), {
    args: ["-qefc", size + [...w.command, ...args].map(quote).join(" "), "/dev/null"],
    env: {
      ...userEnv(),
      STORE_CONFIG_FILE: `${w.dir}/config.toml`,
      XDG_STATE_HOME: `${w.dir}/state`,
      ...options.env,
    },
    clearEnv: true,
    cwd: w.dir,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let shown = "";
  const more = async () => {
    const { done, value } = await reader.read();
    if (!done) shown += decoder.decode(value, { stream: true });
    return !done;
  };
  const writer = child.stdin.getWriter();
  if (options.prompt !== undefined) {
    while (!shown.includes(options.prompt) && await more());
    await writer.write(new TextEncoder().encode(options.keys ?? "")).catch(() => {}); // it may have ended already
  }
  while (await more());
  await writer.close().catch(() => {});
  // deno-lint-ignore no-control-regex
  const plain = shown.replaceAll("\r\n", "\n").replace(/(\x1b\[0G\x1b\[2K\x1b\[J)+/g, "");
  return { code: (await child.status).code, shown: plain };
}
