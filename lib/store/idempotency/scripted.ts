import type { ScriptHost } from "../script_host.ts";
import type { IdempotencyRecord, IdempotencyStore } from "./port.ts";
import { CLAIM_LUA, COMPLETE_LUA, RELEASE_LUA } from "./scripts.ts";
import { digestHex } from "../../text/mod.ts";

/**
 * The idempotency port over a Redis-speaking host (ioredis or Upstash REST) with the scripts of
 * `scripts.ts`; each key is its own (a single-key script is valid on Redis Cluster wherever the
 * key falls). The memory twin is `memory.ts`.
 *
 * @example
 * ```ts ignore
 * const keys = createScriptedIdempotencyStore(host, { prefix: "storectl:" });
 * ```
 */
export function createScriptedIdempotencyStore(host: ScriptHost, options: { prefix?: string } = {}): IdempotencyStore {
  const prefix = `${options.prefix ?? ""}idem:`;
  const shas = new Map<string, Promise<string>>();
  /** Runs `script` by SHA-1, sending it whole when the server does not know it yet. */
  const run = async (script: string, key: string, args: string[]) => {
    let sha = shas.get(script);
    if (!sha) shas.set(script, sha = digestHex("SHA-1", script));
    const keys = [prefix + key];
    try {
      return await host.evalsha(await sha, keys, args);
    } catch (error) {
      if (!/NOSCRIPT/i.test(String((error as Error).message))) throw error;
      return await host.eval(script, keys, args);
    }
  };
  return {
    async claim(key, fingerprint, ttlMs) {
      const held = String(await run(CLAIM_LUA, key, [fingerprint, String(Math.max(1, Math.round(ttlMs)))]) ?? "");
      return held === "" ? undefined : toRecord(held);
    },
    async complete(key, fingerprint, taskId, ttlMs) {
      return Number(await run(COMPLETE_LUA, key, [fingerprint, taskId, String(Math.max(1, Math.round(ttlMs)))])) === 1;
    },
    async release(key, fingerprint) {
      await run(RELEASE_LUA, key, [fingerprint]);
    },
  };
}

function toRecord(held: string): IdempotencyRecord {
  const space = held.indexOf(" ");
  return space === -1 ? { fingerprint: held } : { fingerprint: held.slice(0, space), taskId: held.slice(space + 1) };
}
