import {
  type Cluster,
  debuginfoPath,
  downloadDebuginfo,
  type EnterpriseClient,
  type Node,
  type PackageTarget,
  type RouteFamily,
  servesNewRoutes,
} from "../enterprise/mod.ts";
import { StoreCtlError } from "../errors/mod.ts";
import type { ClientSettings } from "../http/mod.ts";
import type { FileSystem } from "../runtime/mod.ts";
import { packageType } from "./naming.ts";
import { type ByteTransform, createOptimizer, type OptimizeAction, type OptimizeStats } from "./optimize.ts";
import { type PackageResult, packageResult } from "./result.ts";
import { uploadPackage } from "./upload.ts";

/** Where `--upload` sends a package, and the HTTP settings every other request gets. */
export interface UploadDestination {
  /** The file-transfer REST base, e.g. `https://files.example.com/api/rest/v1`. */
  readonly baseUrl: string;
  /** Sent as `X-FilesAPI-Key`; never logged. */
  readonly key: string;
  readonly folder: string;
  readonly partBytes?: number;
  /** Transport (TLS, proxy), timeouts, retry policy and retry notices: the same as the API clients'. */
  readonly settings: ClientSettings;
}

/** What to generate, and where it goes. */
export interface GenerateRequest {
  readonly target: PackageTarget;
  /** The package's file name: also its name in the upload folder. */
  readonly name: string;
  /** The local file (written to `<path>.partial`, then renamed); absent to keep no copy (needs `upload`). */
  readonly path?: string;
  /** The route family to ask first; by default the new one from 7.4 on, else the old one. */
  readonly family?: RouteFamily;
  /** Shrink the package while it streams (`createOptimizer`). */
  readonly optimize?: { readonly logLines: number };
  readonly upload?: UploadDestination;
  /** Stops everything; its reason is the run's error (an interrupt, a deadline). */
  readonly signal?: AbortSignal;
  /** How long the cluster may take to build the package and send its first byte; default the client's timeout. */
  readonly firstByteTimeoutMs?: number;
  /** When the command started: the result's `timestamp`; default now. */
  readonly startedAt?: Date;
}

/** The effects a generation uses. */
export interface GenerateDeps {
  readonly client: EnterpriseClient;
  readonly fs: Pick<FileSystem, "writeStream" | "readStream">;
  readonly gzip?: ByteTransform;
  readonly gunzip?: ByteTransform;
  /** A monotonic clock in milliseconds, for `elapsed_seconds`; default `performance.now`. */
  readonly now?: () => number;
}

/** What a generation tells while it runs; every callback is optional and must not throw. */
export interface GenerateEvents {
  /** The cluster's name and version (the lowest of its nodes': a cluster mid-upgrade serves what its oldest does). */
  readonly onCluster?: (cluster: { readonly name?: string; readonly version?: string }) => void;
  /** The family asked first, and why: `forced` by the request, or by the cluster's `version`. */
  readonly onFamily?: (family: RouteFamily, why: "forced" | "version", version: string | undefined) => void;
  /** The package was asked for: the cluster builds it before its first byte comes. */
  readonly onAsked?: (path: string) => void;
  /** One family answered 404; the other is tried once. */
  readonly onFallback?: (from: string, to: string) => void;
  /** The download began: the route (and family) that answered, and the size when announced. */
  readonly onDownloadStart?: (download: { readonly path: string; readonly family: RouteFamily; size?: number }) => void;
  /** Bytes received so far (before optimizing), of `size` when announced. */
  readonly onDownloadProgress?: (received: number, size: number | undefined) => void;
  /** The download's body has ended, complete. */
  readonly onDownloaded?: (received: number) => void;
  /** Each entry cut, removed, linked or rejected while optimizing, in archive order. */
  readonly onOptimizeAction?: (action: OptimizeAction) => void;
  /** The optimizer's statistics, once its output is complete. */
  readonly onOptimized?: (stats: OptimizeStats) => void;
  /** The package is saved at its path (before any upload). */
  readonly onSaved?: (path: string, size: number) => void;
  /** An upload part went; bytes sent so far, of `size` when known (a saved file). */
  readonly onUploadPart?: (part: number, sent: number, size: number | undefined) => void;
  /** An upload part failed and is sent again (`attempt` from 2). HTTP retries go to `settings.onRetry`. */
  readonly onUploadRetry?: (part: number, attempt: number, error: StoreCtlError) => void;
}

/** How a generation ended: the specification's result either way, and the error when it failed. */
export type GenerateOutcome =
  | { readonly ok: true; readonly result: PackageResult; readonly optimization?: OptimizeStats }
  | { readonly ok: false; readonly result: PackageResult; readonly error: unknown };

/**
 * Generates a support package: the cluster's name and version, the download from the chosen
 * route family (the other one once on a 404), optimized on the fly when asked, into `path`
 * (atomically) and/or uploaded in parts. Memory stays flat whatever the size. It never throws:
 * the outcome carries the result (`success: false` and `error` on failure) and the error, which
 * is the signal's reason when the signal stopped it. A failed upload of a saved package says
 * where the package is.
 *
 * @example
 * ```ts
 * import { generateSupportPackage } from "./generate.ts";
 * import type { EnterpriseClient } from "../enterprise/mod.ts";
 * import type { FileSystem } from "../runtime/mod.ts";
 * declare const client: EnterpriseClient, fs: FileSystem;
 * const outcome = await generateSupportPackage(
 *   { target: { kind: "cluster" }, name: "pkg.tar.gz", path: "/tmp/pkg.tar.gz", optimize: { logLines: 1000 } },
 *   { client, fs },
 *   { onDownloadProgress: (received, size) => console.error(`${received} of ${size ?? "?"} bytes`) },
 * );
 * if (!outcome.ok) throw outcome.error;
 * ```
 */
export async function generateSupportPackage(
  request: GenerateRequest,
  deps: GenerateDeps,
  events: GenerateEvents = {},
): Promise<GenerateOutcome> {
  const now = deps.now ?? (() => performance.now());
  const started = now();
  const startedAt = request.startedAt ?? new Date();
  const signal = request.signal ?? new AbortController().signal;
  const about: { clusterName?: string; clusterVersion?: string; endpoint?: string } = {};
  const base = () => ({
    packageType: packageType(request.target),
    startedAt,
    finishedMs: startedAt.getTime() + now() - started,
    ...about,
  });
  let saved: number | undefined;
  try {
    if (request.path === undefined && !request.upload) {
      throw new TypeError("generateSupportPackage() needs a path, an upload, or both");
    }
    signal.throwIfAborted();
    const { client } = deps;
    const [cluster, nodes] = await Promise.all([
      client.get<Cluster>("/v1/cluster", { signal }),
      client.get<Node[]>("/v1/nodes", { signal }),
    ]);
    about.clusterName = cluster.name;
    about.clusterVersion = lowestVersion(nodes);
    events.onCluster?.({ name: about.clusterName, version: about.clusterVersion });
    signal.throwIfAborted();
    const family = request.family ?? (servesNewRoutes(about.clusterVersion) ? "new" : "old");
    events.onFamily?.(family, request.family ? "forced" : "version", about.clusterVersion);
    events.onAsked?.(debuginfoPath(request.target, family));
    const download = await downloadDebuginfo(client, request.target, {
      family,
      signal,
      firstByteTimeoutMs: request.firstByteTimeoutMs,
      onFallback: events.onFallback,
    });
    signal.throwIfAborted();
    about.endpoint = download.path;
    events.onDownloadStart?.({ path: download.path, family: download.family, size: download.length });
    let stream = download.body.pipeThrough(stopOn(signal)).pipeThrough(counted(download.length, events));
    let stats: Promise<OptimizeStats> | undefined;
    if (request.optimize) {
      const optimizer = createOptimizer({
        logLines: request.optimize.logLines,
        gzip: deps.gzip,
        gunzip: deps.gunzip,
        onAction: events.onOptimizeAction,
      });
      stream = stream.pipeThrough(optimizer);
      stats = optimizer.stats.then((s) => (events.onOptimized?.(s), s));
      stats.catch(() => {}); // the write reports the failure; this is awaited only after it succeeds
    }
    let size: number;
    let upload: Record<string, unknown> | undefined;
    if (request.path === undefined) {
      upload = await send(request, request.upload!, stream, undefined, signal, events);
      size = upload.size as number;
    } else {
      size = saved = await deps.fs.writeStream(request.path, stream);
      events.onSaved?.(request.path, size);
      if (request.upload) {
        const file = (await deps.fs.readStream(request.path)).pipeThrough(stopOn(signal));
        upload = await send(request, request.upload, file, size, signal, events);
      }
    }
    const optimization = await stats;
    const result = packageResult({
      ...base(),
      filePath: request.path,
      fileSize: size,
      message: upload
        ? `Support package uploaded to ${upload.remote_path}${request.path ? `, and saved to ${request.path}` : ""}`
        : `Support package saved to ${request.path}`,
      optimization,
      upload,
    });
    return { ok: true, result, optimization };
  } catch (caught) {
    let error = signal.aborted ? signal.reason : caught;
    if (saved !== undefined && error instanceof StoreCtlError) {
      // The download worked; only the upload failed: say where the package is.
      error = new StoreCtlError(error.code, `The upload failed: ${error.message}`, {
        status: error.status,
        cause: error,
        tips: [...error.tips, `The package is saved at ${request.path}; upload it by hand or run again`],
      });
    }
    const result = packageResult({
      ...base(),
      ...(saved !== undefined && { filePath: request.path, fileSize: saved }),
      message: "Support package generation failed",
      error: error instanceof Error ? error.message : String(error),
    });
    return { ok: false, result, error };
  }
}

/** Uploads `body` as the package's name; returns the result's `upload` field. */
async function send(
  request: GenerateRequest,
  to: UploadDestination,
  body: ReadableStream<Uint8Array>,
  size: number | undefined,
  signal: AbortSignal,
  events: GenerateEvents,
): Promise<Record<string, unknown>> {
  const result = await uploadPackage({
    baseUrl: to.baseUrl,
    key: to.key,
    folder: to.folder,
    partBytes: to.partBytes,
    settings: to.settings,
    name: request.name,
    body,
    size,
    signal,
    onPart: (part, sent) => events.onUploadPart?.(part, sent, size),
    onPartRetry: events.onUploadRetry,
  });
  return {
    remote_path: result.remotePath,
    size: result.size,
    sha256: result.sha256,
    parts: result.parts,
    service: to.baseUrl,
  };
}

/** Counts the bytes going through for `onDownloadProgress`, and tells `onDownloaded` at the end. */
function counted(
  size: number | undefined,
  events: GenerateEvents,
): TransformStream<Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>> {
  let received = 0;
  return new TransformStream({
    transform(chunk, controller) {
      received += chunk.length;
      events.onDownloadProgress?.(received, size);
      controller.enqueue(chunk);
    },
    flush: () => events.onDownloaded?.(received),
  });
}

/** Fails the stream as soon as `signal` aborts, whatever the transport does with it. */
function stopOn(signal: AbortSignal): TransformStream<Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>> {
  let stop = () => {};
  return new TransformStream({
    start(controller) {
      stop = () => controller.error(signal.reason);
      signal.addEventListener("abort", stop, { once: true });
    },
    transform(chunk, controller) {
      signal.throwIfAborted();
      controller.enqueue(chunk);
    },
    flush: () => signal.removeEventListener("abort", stop),
  });
}

/**
 * The lowest `software_version` of the nodes: a cluster mid-upgrade serves what its oldest node does.
 *
 * @example
 * ```ts
 * import { lowestVersion } from "./generate.ts";
 * lowestVersion([{ software_version: "7.4.2" }, { software_version: "7.2.4" }] as never); // "7.2.4"
 * ```
 */
export function lowestVersion(nodes: readonly Node[]): string | undefined {
  const versions = nodes.map((n) => n.software_version).filter((v): v is string => typeof v === "string");
  const key = (v: string) => v.split(".").map((p) => (parseInt(p, 10) || 0).toString().padStart(6, "0")).join(".");
  return versions.sort((a, b) => key(a).localeCompare(key(b)))[0];
}
