import { StoreCtlError } from "../errors/mod.ts";

/**
 * Expands `${VAR}` and `${VAR:-default}` in a config value; a bare `$VAR` stays as written.
 * An unset variable without a default is an error naming the variable and where it was used.
 *
 * @example
 * ```ts
 * expandVars("${HOST:-localhost}:9443", {}, "profile 'lab' key 'url'"); // "localhost:9443"
 * ```
 */
export function expandVars(value: string, env: Readonly<Record<string, string | undefined>>, where: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_match, name: string, fallback?: string) => {
    const found = env[name];
    if (found !== undefined && found !== "") return found;
    if (fallback !== undefined) return fallback;
    throw new StoreCtlError("config", `Environment variable ${name}, used by ${where}, is not set`, {
      tips: [`Set ${name}, or write \${${name}:-default} to give a default`],
    });
  });
}
