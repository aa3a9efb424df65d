/**
 * A real Redis Cluster for tests: 3 masters (or `masters`) with a replica each, of Debian's `redis-server` on free
 * loopback ports (each node's cluster bus port, port + 10000, free too), joined with
 * `redis-cli --cluster create … --cluster-replicas 1`, ready once every node reports
 * `cluster_state:ok` with all 16384 slots assigned and every replica has synced with its master. Stopped (every process killed, the temporary
 * folder removed) by `await using`. Declare the test with `ignore: missingTools("redis-server", "redis-cli")`:
 * under `CI=true` a missing tool fails the test instead.
 *
 * @example
 * ```ts ignore
 * await using cluster = await startRedisCluster();
 * const store = await openStore({ url: cluster.url });
 * ```
 *
 * @module
 */
import { requireTool } from "./tools.ts";
import { until } from "./until.ts";

export interface RedisCluster extends AsyncDisposable {
  /** `redis-cluster://127.0.0.1:p1,127.0.0.1:p2,…` (the masters' seed list). */
  readonly url: string;
  /** Every node's port, masters first as created. */
  readonly ports: readonly number[];
  /** Runs `redis-cli` against the node on `port` and returns its output (e.g. `CLUSTER`, `INFO`). */
  cli(port: number, ...args: string[]): Promise<string>;
  /** The process id of the node on `port`. */
  pid(port: number): number;
  /** The nodes as the node on `port` (default: the first that answers) sees them (`CLUSTER NODES`). */
  nodes(port?: number): Promise<ClusterNode[]>;
  /**
   * Fails over the master that serves `key`'s slot: `CLUSTER FAILOVER` on one of its replicas,
   * waiting until every node sees that replica as the slot's master. Returns the old and the new
   * master's ports.
   */
  failover(key: string): Promise<{ from: number; to: number }>;
  /**
   * `kill -9` of the master that serves `key`'s slot; resolves once the other nodes have promoted
   * its replica and report `cluster_state:ok` (about the node timeout, 2 s, and an election).
   */
  killMaster(key: string): Promise<{ from: number; to: number }>;
  /**
   * `kill -9` of the master that serves `key`'s slot, resolving at once (before its replica is
   * promoted); `promoted()` then waits as {@link RedisCluster.killMaster} does.
   */
  crashMaster(key: string): Promise<{ from: number; to: number; promoted(): Promise<void> }>;
  /** The port of the master serving `key`'s slot, as the first node that answers sees it. */
  masterOf(key: string): Promise<number>;
  /** SIGSTOP of the node on `port` (it hangs: no reply, no closed connection). */
  pause(port: number): void;
  /** SIGCONT of a paused node. */
  resume(port: number): void;
}

/** One line of `CLUSTER NODES`. */
export interface ClusterNode {
  readonly id: string;
  readonly port: number;
  readonly flags: readonly string[];
  /** The master's id for a replica, undefined for a master. */
  readonly master?: string;
  /** Slot ranges `[from, to]` a master serves. */
  readonly slots: readonly (readonly [number, number])[];
}

function parseNodes(text: string): ClusterNode[] {
  return text.trim().split("\n").map((line) => {
    const fields = line.split(" ");
    return {
      id: fields[0],
      port: Number(fields[1].split("@")[0].split(":").at(-1)),
      flags: fields[2].split(","),
      ...(fields[3] !== "-" && { master: fields[3] }),
      slots: fields.slice(8).filter((f) => !f.startsWith("[")).map((range) => {
        const [from, to = from] = range.split("-").map(Number);
        return [from, to] as const;
      }),
    };
  });
}

/** A free loopback port whose cluster bus port (+10000) is free too. */
function freeClusterPort(taken: Set<number>): number {
  for (let i = 0; i < 100; i++) {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    try {
      if (port + 10_000 > 65_535 || taken.has(port) || taken.has(port + 10_000)) continue;
      try {
        Deno.listen({ hostname: "127.0.0.1", port: port + 10_000 }).close();
      } catch {
        continue; // the bus port is in use
      }
      taken.add(port).add(port + 10_000);
      return port;
    } finally {
      listener.close();
    }
  }
  throw new Error("no free loopback port pair (port and port + 10000) found for a Redis Cluster node");
}

/** `until`, for a cluster still forming: a check that fails counts as "not yet". */
const settled = (what: string, check: () => Promise<boolean>, timeoutMs = 20_000) =>
  until(`Redis Cluster: ${what}`, () => check().catch(() => false), timeoutMs, 100);

/**
 * Starts a cluster of `masters` masters (default 3) with a replica each; see the module doc. With
 * `password`, every node requires it (replicas too, to their masters); `url` then carries no
 * password: pass it separately.
 */
export async function startRedisCluster(
  options: { password?: string; tls?: { certFile: string; keyFile: string }; masters?: number } = {},
): Promise<RedisCluster> {
  const masters = options.masters ?? 3;
  const nodeCount = 2 * masters;
  const auth = options.password ? ["--requirepass", options.password, "--masterauth", options.password] : [];
  // With `tls`: clients, the cluster bus and replication all over TLS (the certificate is its own
  // CA; clients need not present one), and `url` is `rediss-cluster://`.
  const tls = options.tls;
  const tlsArgs = (port: number) =>
    tls
      ? [
        ...["--port", "0", "--tls-port", String(port), "--tls-cluster", "yes", "--tls-replication", "yes"],
        ...["--tls-cert-file", tls.certFile, "--tls-key-file", tls.keyFile, "--tls-ca-cert-file", tls.certFile],
        ...["--tls-auth-clients", "no"],
      ]
      : ["--port", String(port)];
  const cliTls = tls ? ["--tls", "--cacert", tls.certFile] : [];
  const server = requireTool("redis-server");
  const redisCli = requireTool("redis-cli");
  const dir = await Deno.makeTempDir({ prefix: "redis-cluster-" });
  const taken = new Set<number>();
  const ports = Array.from({ length: nodeCount }, () => freeClusterPort(taken));
  const children = new Map<number, Deno.ChildProcess>();
  const cli = async (port: number, ...args: string[]) => {
    const out = await new Deno.Command(redisCli, {
      args: [...cliTls, "-h", "127.0.0.1", "-p", String(port), ...args],
      env: options.password ? { REDISCLI_AUTH: options.password } : {},
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    if (!out.success) throw new Error(`redis-cli ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
    return text;
  };
  const stop = async () => {
    for (const child of children.values()) {
      try {
        child.kill("SIGKILL");
      } catch { /* gone already */ }
    }
    await Promise.all([...children.values()].map((c) => c.status));
    children.clear();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  try {
    for (const port of ports) {
      children.set(
        port,
        new Deno.Command(server, {
          args: [
            ...tlsArgs(port),
            "--bind",
            "127.0.0.1",
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            `${dir}/nodes-${port}.conf`,
            "--cluster-node-timeout",
            "2000",
            "--dir",
            dir,
            "--save",
            "",
            "--appendonly",
            "no",
            // Replicas sync at once (7.0 waits 5 s for more replicas before a diskless sync).
            "--repl-diskless-sync-delay",
            "0",
            ...auth,
          ],
          stdout: "null",
          stderr: "null",
        }).spawn(),
      );
    }
    await Promise.all(
      ports.map((port) => settled(`node ${port} answering`, async () => /PONG/.test(await cli(port, "PING")))),
    );
    await cli(
      ports[0],
      "--cluster",
      "create",
      ...ports.map((p) => `127.0.0.1:${p}`),
      "--cluster-replicas",
      "1",
      "--cluster-yes",
    );
    await Promise.all(ports.map((port) =>
      settled(`node ${port} reporting cluster_state:ok`, async () => {
        const info = await cli(port, "CLUSTER", "INFO");
        return /cluster_state:ok/.test(info) && /cluster_slots_assigned:16384/.test(info) &&
          info.includes(`cluster_known_nodes:${nodeCount}`);
      })
    ));
    // Every node knows the roles: the masters, their replicas, all links up.
    await Promise.all(
      ports.map((port) =>
        settled(`node ${port} seeing ${masters} masters and ${masters} replicas`, async () => {
          const lines = (await cli(port, "CLUSTER", "NODES")).trim().split("\n");
          const flags = lines.map((line) => line.split(" ")[2].split(","));
          return lines.length === nodeCount && lines.every((line) => / connected/.test(line)) &&
            flags.filter((f) => f.includes("slave")).length === masters &&
            flags.every((f) => !f.some((flag) => /fail|handshake|noaddr/.test(flag)));
        })
      ),
    );
    // Every replica has synced with its master (else a failover would promote an empty node).
    const replicas = parseNodes(await cli(ports[0], "CLUSTER", "NODES")).filter((n) => n.master);
    await Promise.all(replicas.map(({ port }) =>
      settled(`replica ${port} synced with its master`, async () => {
        const info = await cli(port, "INFO", "replication");
        return /master_link_status:up/.test(info) && /master_sync_in_progress:0/.test(info);
      })
    ));
  } catch (error) {
    await stop();
    throw error;
  }
  // Questions go to a node that answers: the first neither killed nor paused.
  const paused = new Set<number>();
  const live = () => {
    const port = ports.find((p) => children.has(p) && !paused.has(p));
    if (port === undefined) throw new Error("Redis Cluster: every node is killed or paused");
    return port;
  };
  const slotOf = async (key: string) => Number((await cli(live(), "CLUSTER", "KEYSLOT", key)).trim());
  const slotMaster = async (key: string) => {
    const slot = await slotOf(key);
    const nodes = parseNodes(await cli(live(), "CLUSTER", "NODES"));
    const master = nodes.find((n) => n.flags.includes("master") && n.slots.some(([a, b]) => slot >= a && slot <= b));
    const replica = nodes.find((n) => n.master === master?.id && !n.flags.includes("fail"));
    if (!master) throw new Error(`Redis Cluster: no master serves slot ${slot}`);
    return { slot, master, replica };
  };
  const signal = (port: number, name: Deno.Signal) => {
    const child = children.get(port);
    if (!child) throw new Error(`no Redis Cluster node on port ${port}`);
    Deno.kill(child.pid, name);
    if (name === "SIGSTOP") paused.add(port);
    else paused.delete(port);
  };
  const crashMaster = async (key: string) => {
    // After a failover, the old master shows as the new one's replica a moment later.
    let found = await slotMaster(key);
    await settled(`a replica for the master of ${key}`, async () => !!(found = await slotMaster(key)).replica, 5_000)
      .catch(() => {});
    const { slot, master, replica } = found;
    if (!replica) throw new Error(`Redis Cluster: the master of slot ${slot} has no replica`);
    const child = children.get(master.port)!;
    child.kill("SIGKILL");
    await child.status;
    children.delete(master.port);
    const alive = ports.filter((port) => children.has(port));
    const promoted = async () => {
      await Promise.all(
        alive.map((port) =>
          settled(`node ${port} promoting ${replica.port} after ${master.port} died`, async () => {
            if (!/cluster_state:ok/.test(await cli(port, "CLUSTER", "INFO"))) return false;
            const now = parseNodes(await cli(port, "CLUSTER", "NODES"));
            const served = now.find((n) =>
              n.flags.includes("master") && n.slots.some(([a, b]) => slot >= a && slot <= b)
            );
            return served?.port === replica.port;
          })
        ),
      );
    };
    return { from: master.port, to: replica.port, promoted };
  };
  return {
    url: `${tls ? "rediss" : "redis"}-cluster://${ports.slice(0, 3).map((p) => `127.0.0.1:${p}`).join(",")}`,
    ports,
    cli,
    pid(port) {
      const child = children.get(port);
      if (!child) throw new Error(`no Redis Cluster node on port ${port}`);
      return child.pid;
    },
    nodes: async (port = live()) => parseNodes(await cli(port, "CLUSTER", "NODES")),
    async failover(key) {
      const slot = Number((await cli(live(), "CLUSTER", "KEYSLOT", key)).trim());
      const nodes = parseNodes(await cli(live(), "CLUSTER", "NODES"));
      const master = nodes.find((n) => n.flags.includes("master") && n.slots.some(([a, b]) => slot >= a && slot <= b));
      const replica = nodes.find((n) => n.master === master?.id);
      if (!master || !replica) throw new Error(`Redis Cluster: no master with a replica serves slot ${slot}`);
      const answer = (await cli(replica.port, "CLUSTER", "FAILOVER")).trim();
      if (answer !== "OK") throw new Error(`CLUSTER FAILOVER on ${replica.port} answered ${answer}`);
      await Promise.all(
        ports.map((port) =>
          settled(`node ${port} seeing ${replica.port} as the master of slot ${slot}`, async () => {
            const now = parseNodes(await cli(port, "CLUSTER", "NODES"));
            const served = now.find((n) =>
              n.flags.includes("master") && n.slots.some(([a, b]) => slot >= a && slot <= b)
            );
            return served?.port === replica.port;
          })
        ),
      );
      return { from: master.port, to: replica.port };
    },
    async killMaster(key) {
      const { from, to, promoted } = await crashMaster(key);
      await promoted();
      return { from, to };
    },
    crashMaster,
    masterOf: async (key) => (await slotMaster(key)).master.port,
    pause: (port) => signal(port, "SIGSTOP"),
    resume: (port) => signal(port, "SIGCONT"),
    [Symbol.asyncDispose]: stop,
  };
}
