/**
 * A real `redis-server` on a free loopback port for one test, stopped by `await using`.
 *
 * @module
 */
import { requireTool } from "./tools.ts";

export interface RedisServer extends AsyncDisposable {
  readonly url: string;
  readonly port: number;
  /** The process id of the running server (for benchmarks' CPU figures). */
  readonly pid: number;
  /** Kills the server (to test an unreachable store). */
  stop(): Promise<void>;
  /** Starts it again on the same port: empty, or with what it held when started with `persist`. */
  start(): Promise<void>;
  /** SIGSTOP: the server keeps its connections open but answers nothing (a stalled store). */
  pause(): void;
  /** SIGCONT after `pause()`. */
  resume(): void;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

async function waitForPort(port: number, up: boolean) {
  for (let i = 0; i < 100; i++) {
    const open = await Deno.connect({ hostname: "127.0.0.1", port }).then((c) => (c.close(), true), () => false);
    if (open === up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server on port ${port} did not ${up ? "start" : "stop"}`);
}

/**
 * Starts a redis-server on a free loopback port; declare the test with
 * `ignore: missingTools("redis-server")`. With `password`, the server requires it and `url` carries it.
 * With `persist`, it writes every command to an append-only file (fsync on each) in a temporary
 * folder, so a `stop()` (SIGKILL) and `start()` is a restart that keeps the data.
 * With `replicaOf`, it is a replica of the redis-server on that loopback port.
 */
export async function startRedis(
  options: { password?: string; persist?: boolean; replicaOf?: number } = {},
): Promise<RedisServer> {
  const binary = requireTool("redis-server");
  const port = freePort();
  const auth = options.password ? ["--requirepass", options.password] : [];
  const dir = options.persist ? await Deno.makeTempDir({ prefix: "redis-aof-" }) : undefined;
  const persistence = dir ? ["--dir", dir, "--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"];
  // A replica loads its master's data through no file (else a full sync leaves dump.rdb in the working folder).
  const replica = options.replicaOf
    ? ["--replicaof", "127.0.0.1", String(options.replicaOf), "--repl-diskless-load", "on-empty-db"]
    : [];
  let child: Deno.ChildProcess | undefined;
  const server: RedisServer = {
    url: `redis://${options.password ? `:${encodeURIComponent(options.password)}@` : ""}127.0.0.1:${port}`,
    port,
    get pid() {
      if (!child) throw new Error("redis-server is not running");
      return child.pid;
    },
    async start() {
      child = new Deno.Command(binary, {
        args: ["--port", String(port), "--bind", "127.0.0.1", "--save", "", ...persistence, ...auth, ...replica],
        stdout: "null",
        stderr: "null",
      }).spawn();
      await waitForPort(port, true);
    },
    pause() {
      child?.kill("SIGSTOP");
    },
    resume() {
      child?.kill("SIGCONT");
    },
    async stop() {
      if (!child) return;
      child.kill("SIGKILL"); // ends a paused server too
      await child.status;
      child = undefined;
      await waitForPort(port, false);
    },
    async [Symbol.asyncDispose]() {
      await server.stop();
      if (dir) await Deno.remove(dir, { recursive: true });
    },
  };
  await server.start();
  return server;
}
