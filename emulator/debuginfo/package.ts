import { createTarPacker } from "modern-tar";
import { createRandom, type Random } from "../random.ts";
import { LOG_STYLES, logChunks, type LogStyle } from "./log_text.ts";

/** What a debug-info package covers. */
export type PackageScope =
  | { readonly kind: "cluster" }
  | { readonly kind: "nodes" }
  | { readonly kind: "node"; readonly uid: number }
  | { readonly kind: "bdb"; readonly uid: number };

/** Everything a package is generated from; equal options give identical bytes. */
export interface PackageOptions {
  readonly seed: number;
  /** Size of the package's files (as `tar tv` lists them), in MiB; met to within a few KiB. */
  readonly sizeMb: number;
  readonly scope: PackageScope;
  readonly cluster: { readonly name: string; readonly softwareVersion: string };
  readonly nodes: readonly { readonly uid: number; readonly addr: string }[];
  readonly bdbs: readonly { readonly uid: number; readonly name: string }[];
  /** The gzip transform; default `CompressionStream`, which on Node ignores backpressure. */
  readonly gzip?: Gzip;
}

/** Makes a gzip transform. */
export type Gzip = () => ReadableWritablePair<Uint8Array<ArrayBuffer>, BufferSource>;

const webGzip: Gzip = () => new CompressionStream("gzip");

/** One file of the package, described but not yet generated. */
export type PlannedEntry =
  | { readonly kind: "text"; readonly name: string; readonly text: string }
  | {
    readonly kind: "log";
    readonly name: string;
    readonly style: LogStyle;
    readonly size: number;
  }
  | {
    readonly kind: "gzlog";
    readonly name: string;
    readonly style: LogStyle;
    readonly size: number;
  };

const EPOCH_MS = Date.UTC(2026, 0, 1);
const ROTATED_MAX_BYTES = 256 * 1024;

/**
 * Lists the files of a package: per-node folders with large `.log` files, rotated plain and
 * gzipped logs, JSON and config files, and cluster files copied into every node folder.
 */
export function planPackage(options: PackageOptions): PlannedEntry[] {
  const { scope } = options;
  const nodes = scope.kind === "node" ? options.nodes.filter((n) => n.uid === scope.uid) : options.nodes;
  const bdbs = scope.kind === "bdb" ? options.bdbs.filter((b) => b.uid === scope.uid) : options.bdbs;
  const clusterInfo = json({
    name: options.cluster.name,
    software_version: options.cluster.softwareVersion,
    nodes: options.nodes.map((n) => n.uid),
  });
  const bdbsInfo = json(bdbs.map((b) => ({ uid: b.uid, name: b.name, status: "active" })));

  const fixed: PlannedEntry[] = [];
  const logs: { name: string; style: LogStyle; weight: number }[] = [];
  if (scope.kind !== "node" && scope.kind !== "nodes") {
    fixed.push({ kind: "text", name: "cluster/cluster_info.json", text: clusterInfo });
    fixed.push({ kind: "text", name: "cluster/bdbs.json", text: bdbsInfo });
  }
  for (const node of nodes) {
    const dir = `node_${node.uid}`;
    fixed.push({ kind: "text", name: `${dir}/node_info.json`, text: json({ uid: node.uid, addr: node.addr }) });
    fixed.push({ kind: "text", name: `${dir}/cluster_info.json`, text: clusterInfo });
    fixed.push({ kind: "text", name: `${dir}/bdbs.json`, text: bdbsInfo });
    fixed.push({ kind: "text", name: `${dir}/conf/supervisord.conf`, text: supervisordConf(node.uid) });
    for (const bdb of bdbs) {
      fixed.push({ kind: "text", name: `${dir}/conf/redis-${bdb.uid}.conf`, text: redisConf(bdb.uid) });
      logs.push({ name: `${dir}/logs/redis-${bdb.uid}.log`, style: LOG_STYLES.redis, weight: 3 });
    }
    logs.push({ name: `${dir}/logs/dmcproxy.log`, style: LOG_STYLES.proxy, weight: 2 });
    logs.push({ name: `${dir}/logs/event_log.log`, style: LOG_STYLES.event, weight: 1 });
    logs.push({ name: `${dir}/logs/cnm_http.log`, style: LOG_STYLES.http, weight: 1 });
    logs.push({ name: `${dir}/logs/cnm_http.log.1`, style: LOG_STYLES.http, weight: 1 });
  }

  const target = Math.max(0, Math.round(options.sizeMb * 1024 * 1024));
  const rotatedSize = Math.min(ROTATED_MAX_BYTES, Math.floor(target / 100));
  const rotated: PlannedEntry[] = nodes.flatMap((node) =>
    [1, 2].map((n) => ({
      kind: "gzlog" as const,
      name: `node_${node.uid}/logs/redis.log.${n}.gz`,
      style: LOG_STYLES.redis,
      size: rotatedSize,
    }))
  );
  const fixedBytes = fixed.reduce((sum, e) => sum + (e.kind === "text" ? e.text.length : 0), 0);
  // Rotated logs are stored compressed, a few KiB each: they come on top of the target.
  const logBudget = Math.max(0, target - fixedBytes);
  const totalWeight = logs.reduce((sum, l) => sum + l.weight, 0);
  const large: PlannedEntry[] = logs.map((l) => ({
    kind: "log",
    name: l.name,
    style: l.style,
    size: Math.floor((logBudget * l.weight) / totalWeight),
  }));
  return [...fixed, ...large, ...rotated].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Streams a package as `tar.gz`. Memory stays constant whatever the size: each log file is
 * generated chunk by chunk as the consumer pulls.
 *
 * @example
 * ```ts
 * import { packageStream } from "./package.ts";
 * const body = packageStream({
 *   seed: 1,
 *   sizeMb: 4,
 *   scope: { kind: "cluster" },
 *   cluster: { name: "c1", softwareVersion: "7.2.4" },
 *   nodes: [{ uid: 1, addr: "10.0.0.1" }],
 *   bdbs: [{ uid: 1, name: "cache" }],
 * });
 * const response = new Response(body, { headers: { "content-type": "application/x-gzip" } });
 * ```
 */
export function packageStream(options: PackageOptions): ReadableStream<Uint8Array<ArrayBuffer>> {
  const { readable, controller } = createTarPacker();
  const random = createRandom(options.seed ^ scopeHash(options.scope));
  const gzip = options.gzip ?? webGzip;
  (async () => {
    for (const entry of planPackage(options)) {
      const body = await entryBody(entry, random, gzip);
      const writer = controller.add({
        name: entry.name,
        size: body.size,
        mtime: new Date(EPOCH_MS),
        mode: 0o644,
      }).getWriter();
      for (const chunk of body.chunks) await writer.write(chunk);
      await writer.close();
    }
    controller.finalize();
  })().catch((error) => {
    try {
      controller.error(error);
    } catch { /* already stopped because the reader went away */ }
  });
  return readable.pipeThrough(gzip());
}

async function entryBody(
  entry: PlannedEntry,
  random: Random,
  gzip: Gzip,
): Promise<{ size: number; chunks: Iterable<Uint8Array> }> {
  switch (entry.kind) {
    case "text": {
      const bytes = new TextEncoder().encode(entry.text);
      return { size: bytes.length, chunks: [bytes] };
    }
    case "log":
      return { size: entry.size, chunks: logChunks(random, entry.style, entry.size, EPOCH_MS) };
    case "gzlog": {
      // Buffered, unlike the large logs: a tar header needs the size, known only once compressed.
      const plain = new Blob([...logChunks(random, entry.style, entry.size, EPOCH_MS)]);
      const gz: Uint8Array<ArrayBuffer>[] = [];
      for await (const chunk of plain.stream().pipeThrough(gzip())) gz.push(chunk);
      return { size: gz.reduce((n, c) => n + c.length, 0), chunks: gz };
    }
  }
}

function scopeHash(scope: PackageScope): number {
  const key = scope.kind === "node" || scope.kind === "bdb" ? `${scope.kind}:${scope.uid}` : scope.kind;
  let hash = 0;
  for (const c of key) hash = (Math.imul(hash, 31) + c.charCodeAt(0)) | 0;
  return hash;
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2) + "\n";
}

function redisConf(bdbUid: number): string {
  return `# redis-${bdbUid}\nport ${12000 + bdbUid}\nmaxmemory-policy volatile-lru\nappendonly no\nsave ""\n`;
}

function supervisordConf(nodeUid: number): string {
  return `[supervisord]\nlogfile=/var/opt/storectl/log/node_${nodeUid}/supervisord.log\n` +
    `[program:cnm_http]\ncommand=/opt/storectl/bin/cnm_http\nautorestart=true\n`;
}
