/**
 * What the stream benchmarks share: the bench server process, its RSS, latency histograms,
 * JSON posts and redis-server's client count.
 *
 * @module
 */

export const STREAM_SERVER = new URL("./stream_server.ts", import.meta.url).pathname;

/** Resident set size of a process, in KB (`/proc/<pid>/status`). */
export function rssKb(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(status.match(/VmRSS:\s+(\d+)/)![1]);
}

/** How to start a server: a Deno entry file, or a whole command (the Node bundle). */
export type Entry = string | string[];

export interface BenchServer {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** Starts a server process and waits for its `listening on <url>` line. */
export async function startBenchServer(
  env: Record<string, string>,
  entry: Entry = STREAM_SERVER,
): Promise<BenchServer> {
  const [command, ...args] = typeof entry === "string" ? [Deno.execPath(), "run", "-A", entry] : entry;
  const child = new Deno.Command(command, {
    args,
    env: { PORT: "0", ...env },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!/listening on (\S+)/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`bench server exited: ${out}`);
    out += value;
  }
  reader.releaseLock();
  return {
    url: out.match(/listening on (\S+)/)![1],
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await child.stdout.cancel().catch(() => {});
    },
  };
}

export const post = async (url: string, body: unknown) =>
  await (await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  })).json();

/** Latencies in 0.1 ms buckets up to 60 s. */
export class Histogram {
  readonly buckets = new Uint32Array(600_000);
  count = 0;
  add(ms: number) {
    this.buckets[Math.min(this.buckets.length - 1, Math.max(0, Math.round(ms * 10)))]++;
    this.count++;
  }
  /** How many values were below `ms`. */
  countBelow(ms: number): number {
    let n = 0;
    for (let i = 0; i < Math.min(this.buckets.length, ms * 10); i++) n += this.buckets[i];
    return n;
  }
  quantile(q: number): number {
    let seen = 0;
    const target = q * this.count;
    for (let i = 0; i < this.buckets.length; i++) {
      seen += this.buckets[i];
      if (seen >= target) return i / 10;
    }
    return Infinity;
  }
}

/** `INFO clients`' connected_clients of the redis-server on `port`, the asking connection excluded. */
export async function redisClients(port: number): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode("INFO clients\r\n"));
    let text = "";
    const buffer = new Uint8Array(4096);
    while (!/connected_clients:\d+\r\n/.test(text)) {
      const n = await conn.read(buffer);
      if (n === null) throw new Error("redis-server closed the connection");
      text += new TextDecoder().decode(buffer.subarray(0, n));
    }
    return Number(text.match(/connected_clients:(\d+)/)![1]) - 1;
  } finally {
    conn.close();
  }
}
