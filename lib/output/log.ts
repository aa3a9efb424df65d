/** Log levels, quietest first. */
export const LEVELS = ["error", "warn", "info", "debug", "trace"] as const;
export type Level = (typeof LEVELS)[number];

/** Writes diagnostic lines to stderr; never to stdout, which is for data. */
export interface Logger {
  enabled(level: Level, module?: string): boolean;
  log(level: Level, module: string, message: string): void;
}

/**
 * Builds a logger from `-v` counts and a `STORE_LOG` / `RUST_LOG` style filter:
 * `debug`, `trace`, or `module=level` pairs separated by commas (`http=debug,config=trace`).
 * The more verbose of the two wins.
 *
 * @example
 * ```ts
 * const logger = createLogger({ verbosity: 1, filter: "http=trace", write: (l) => console.error(l) });
 * logger.enabled("debug", "http"); // true
 * ```
 */
export function createLogger(options: { verbosity: number; filter?: string; write: (line: string) => void }): Logger {
  const fromFlags = LEVELS[Math.min(1 + options.verbosity, LEVELS.length - 1)];
  const { base, modules } = parseFilter(options.filter ?? "");
  const rank = (level: Level) => LEVELS.indexOf(level);
  const enabled = (level: Level, module = "") => {
    const filterLevel = modules.get(module) ?? base;
    const threshold = filterLevel && rank(filterLevel) > rank(fromFlags) ? filterLevel : fromFlags;
    return rank(level) <= rank(threshold);
  };
  return {
    enabled,
    log(level, module, message) {
      if (enabled(level, module)) options.write(`${level.toUpperCase().padEnd(5)} ${module}: ${message}`);
    },
  };
}

function parseFilter(filter: string): { base?: Level; modules: Map<string, Level> } {
  const modules = new Map<string, Level>();
  let base: Level | undefined;
  for (const part of filter.split(",").map((p) => p.trim().toLowerCase()).filter(Boolean)) {
    const [name, level] = part.includes("=") ? part.split("=", 2) : ["", part];
    if (!(LEVELS as readonly string[]).includes(level)) continue;
    // RUST_LOG module paths look like `storectl::http`; keep the last segment.
    if (name === "") base = level as Level;
    else modules.set(name.split("::").pop()!, level as Level);
  }
  return { base, modules };
}
