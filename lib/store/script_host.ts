import { digestHex } from "../text/mod.ts";

/** What the scripted ports need from a Redis client: scripts by hash, with a full fallback. */
export interface ScriptHost {
  evalsha(sha: string, keys: string[], args: string[]): Promise<unknown>;
  eval(script: string, keys: string[], args: string[]): Promise<unknown>;
}

/**
 * Runs Lua scripts on `host` with `keys` (the slot's key): by SHA-1 (`EVALSHA`), sending the
 * script itself (`EVAL`) when the server does not know it yet (a fresh or restarted server,
 * after `SCRIPT FLUSH`).
 *
 * @example
 * ```ts
 * declare const host: ScriptHost;
 * const run = scriptRunner(host, ["{t}:seq"]);
 * await run("return ARGV[1]", ["hello"]); // "hello"
 * ```
 */
export function scriptRunner(host: ScriptHost, keys: string[]): (script: string, args: string[]) => Promise<unknown> {
  const call = scriptCaller(host);
  return (script, args) => call(keys, script, args);
}

/**
 * {@link scriptRunner} with the slot's keys given on each call, for ports whose scripts run in
 * several slots (a Redis Cluster's partitions).
 *
 * @example
 * ```ts
 * declare const host: ScriptHost;
 * const call = scriptCaller(host);
 * await call(["{t:1}:seq"], "return ARGV[1]", ["hello"]); // "hello"
 * ```
 */
export function scriptCaller(
  host: ScriptHost,
): (keys: string[], script: string, args: string[]) => Promise<unknown> {
  const shas = new Map<string, Promise<string>>();
  return async (keys, script, args) => {
    let sha = shas.get(script);
    if (!sha) shas.set(script, sha = digestHex("SHA-1", script));
    try {
      return await host.evalsha(await sha, keys, args);
    } catch (error) {
      if (!/NOSCRIPT/i.test(String((error as Error).message))) throw error;
      return await host.eval(script, keys, args);
    }
  };
}
