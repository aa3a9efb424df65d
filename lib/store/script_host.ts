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
    if (!sha) shas.set(script, sha = sha1(script));
    try {
      return await host.evalsha(await sha, keys, args);
    } catch (error) {
      if (!/NOSCRIPT/i.test(String((error as Error).message))) throw error;
      return await host.eval(script, keys, args);
    }
  };
}

async function sha1(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
