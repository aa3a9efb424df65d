/**
 * Timers on `AbortSignal.timeout` instead of `setTimeout`: on Deno the first `setTimeout` starts
 * part of the Node-compatibility layer (about 5 ms, measured), which `ctl` must not pay on every
 * command. A cancelled timer is disarmed, not removed; `ctl` exits explicitly. Node does not keep
 * a process alive for these timers, so they only guard work that does (a request, a download):
 * to wait for its own sake, use a real `setTimeout`.
 *
 * @example
 * ```ts
 * import { after } from "./timer.ts";
 * const cancel = after(30_000, () => console.error("too slow"));
 * cancel();
 * ```
 *
 * @module
 */

/** Calls `fn` after `ms` milliseconds unless the returned function is called first. */
export function after(ms: number, fn: () => void): () => void {
  let armed = true;
  AbortSignal.timeout(Math.max(0, Math.ceil(ms))).addEventListener("abort", () => armed && fn(), { once: true });
  return () => (armed = false);
}

/**
 * Calls `onIdle` once nothing has happened for `ms` while watching: `watch()` starts a wait (for
 * the next chunk, say), `done()` ends it. Time between waits does not count, and only one timer
 * is pending at a time however many waits there are.
 */
export function watchdog(ms: number, onIdle: () => void): { watch(): void; done(): void; stop(): void } {
  let since = 0;
  let watching = false;
  let stopped = false;
  const check = () => {
    if (stopped) return;
    const idle = watching ? Date.now() - since : 0;
    if (idle >= ms) {
      stopped = true;
      onIdle();
    } else after(ms - idle, check);
  };
  after(ms, check);
  return {
    watch() {
      since = Date.now();
      watching = true;
    },
    done: () => void (watching = false),
    stop: () => void (stopped = true),
  };
}
