/**
 * The runtime storectl runs on, behind one interface: `deno.ts` on Deno (`Deno.*` only),
 * `node.ts` on Node (`node:*`). `loadRuntime()` imports the right one, so nothing else in
 * storectl touches `Deno.*` or `node:*`, and Deno never starts its Node layer for `ctl`.
 *
 * @example
 * ```ts
 * import { loadRuntime } from "./mod.ts";
 * const runtime = await loadRuntime();
 * const listener = await runtime.serve({ port: 0, fetch: () => new Response("ok") });
 * await listener.close();
 * ```
 *
 * @module
 */
import type { Runtime } from "./types.ts";

export type {
  DirEntry,
  FileInfo,
  FileKind,
  FileSystem,
  Listener,
  MessagePortLike,
  Runtime,
  ServeOptions,
  StdIn,
  StdStream,
  TerminatingSignal,
  WorkerScript,
} from "./types.ts";
export { BrokenPipe } from "./types.ts";
export {
  ClientDisconnected,
  DEFAULT_SERVE_LIMITS,
  prereadBody,
  RequestBodyTimeout,
  type ServeLimits,
  type ServeLog,
} from "./serve_limits.ts";
export { basename, dirname, joinPath, resolvePath } from "./path.ts";
export { type Capture, capture } from "./capture.ts";
export { GUNZIP_PIECE_BYTES, webGunzip } from "./web_gunzip.ts";
export { directBody, type DirectSink, withDirectBody } from "./direct_body.ts";

/** The runtime this process runs on. */
export async function loadRuntime(): Promise<Runtime> {
  return "Deno" in globalThis ? (await import("./deno.ts")).runtime : (await import("./node.ts")).runtime;
}
