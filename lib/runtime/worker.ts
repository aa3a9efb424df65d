import type { MessagePortLike } from "./types.ts";

/**
 * Inside a worker thread, on either runtime: the port to the thread that started it.
 *
 * @example
 * ```ts ignore
 * const parent = await workerParent();
 * parent.onMessage((message) => parent.postMessage(message)); // an echo worker
 * ```
 */
export async function workerParent(): Promise<MessagePortLike> {
  return "Deno" in globalThis
    ? (await import("./deno/worker_parent.ts")).denoWorkerParent()
    : (await import("./node/worker_parent.ts")).nodeWorkerParent();
}
