/**
 * The only module that touches `Deno.*` or `node:*`: listeners, process, files. Everything
 * else in storectl is runtime-neutral and gets these through parameters.
 *
 * @example
 * ```ts
 * import { serve } from "./lib/runtime/mod.ts";
 * const listener = await serve({ port: 0, fetch: () => new Response("ok") });
 * await listener.close();
 * ```
 *
 * @module
 */
export { type Listener, serve, type ServeOptions } from "./serve.ts";
export { args, env, exit, onShutdownSignal } from "./process.ts";
export { readTextFile, removePartialFiles, writeFileAtomic, writeStreamAtomic } from "./fs.ts";
export { environment, readStdin, stderr, stdout, type StdStream } from "./stdio.ts";
export { homeDir, readTextFileIfExists } from "./files.ts";
export { gzipStream } from "./gzip.ts";
export { nativeFetchTrusting } from "./trusted_fetch.ts";
