/**
 * What a benchmark reads from the redis-server it runs against: `INFO` sections over a plain
 * connection (no client library, so the reading itself sends one `INFO` and nothing else),
 * the server's pid and its per-command statistics.
 *
 * @example
 * ```ts
 * const before = await commandStats(6379);
 * // … load …
 * const used = commandDelta(before, await commandStats(6379));
 * ```
 *
 * @module
 */

/** The text of `INFO <section>` from the redis-server on `port` (loopback). */
export async function redisInfo(port: number, section: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode(`INFO ${section}\r\n`));
    const chunks: Uint8Array[] = [];
    let size = 0;
    let expected = Infinity; // header "$<n>\r\n", then n bytes and "\r\n"
    const buffer = new Uint8Array(65536);
    while (size < expected) {
      const n = await conn.read(buffer);
      if (n === null) throw new Error(`redis-server on port ${port} closed the connection during INFO ${section}`);
      chunks.push(buffer.slice(0, n));
      size += n;
      if (expected === Infinity) {
        const head = new TextDecoder().decode(concat(chunks, size).subarray(0, 32));
        const match = /^\$(\d+)\r\n/.exec(head);
        if (head.startsWith("-")) throw new Error(`redis-server on port ${port} refused INFO: ${head}`);
        if (match) expected = match[0].length + Number(match[1]) + 2;
      }
    }
    const text = new TextDecoder().decode(concat(chunks, size));
    return text.slice(text.indexOf("\r\n") + 2, text.length - 2);
  } finally {
    conn.close();
  }
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** The pid of the redis-server listening on `port`. */
export async function redisPid(port: number): Promise<number> {
  return Number(/process_id:(\d+)/.exec(await redisInfo(port, "server"))![1]);
}

/** Calls and µs inside redis-server, per command name (`INFO commandstats`). */
export type CommandStats = ReadonlyMap<string, { readonly calls: number; readonly usec: number }>;

/** `INFO commandstats` of the redis-server on `port`. */
export async function commandStats(port: number): Promise<CommandStats> {
  const stats = new Map<string, { calls: number; usec: number }>();
  for (const match of (await redisInfo(port, "commandstats")).matchAll(/^cmdstat_(\S+?):calls=(\d+),usec=(\d+)/gm)) {
    stats.set(match[1], { calls: Number(match[2]), usec: Number(match[3]) });
  }
  return stats;
}

/** What each command used between two readings (commands with no new calls left out). */
export function commandDelta(before: CommandStats, after: CommandStats): CommandStats {
  const delta = new Map<string, { calls: number; usec: number }>();
  for (const [name, { calls, usec }] of after) {
    const earlier = before.get(name) ?? { calls: 0, usec: 0 };
    if (calls > earlier.calls) delta.set(name, { calls: calls - earlier.calls, usec: usec - earlier.usec });
  }
  return delta;
}

/**
 * The commands that run scripts. Redis counts the commands a script calls in `commandstats`
 * as well, inside the script's own time, so a client's cost is its script commands plus any
 * other command it sends itself — never the sum of all.
 */
export const SCRIPT_COMMANDS: ReadonlySet<string> = new Set([
  "eval",
  "evalsha",
  "eval_ro",
  "evalsha_ro",
  "fcall",
  "fcall_ro",
]);

/** The calls and µs of the script commands in `commands` (what clients sent as scripts). */
export function scriptTotals(commands: CommandStats): { calls: number; usec: number } {
  let calls = 0;
  let usec = 0;
  for (const [name, stat] of commands) {
    if (!SCRIPT_COMMANDS.has(name)) continue;
    calls += stat.calls;
    usec += stat.usec;
  }
  return { calls, usec };
}
