/**
 * Waits `ms` milliseconds (forever with `Infinity`); an aborted `signal` ends the wait at once and
 * rejects with the signal's reason. A real timer keeps the process alive while it waits, as a
 * retry or a poll must (Node lets a process end with an `AbortSignal.timeout` pending).
 *
 * @example
 * ```ts
 * import { sleep } from "./sleep.ts";
 * await sleep(10);
 * const stop = new AbortController();
 * const waiting = sleep(Infinity, stop.signal).catch(() => "stopped");
 * stop.abort();
 * await waiting; // "stopped"
 * ```
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
    function done() {
      signal?.removeEventListener("abort", abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal!.reason);
    }
    signal?.addEventListener("abort", abort, { once: true });
  });
}
