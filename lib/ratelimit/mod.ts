/**
 * Sliding-window rate limiting: the Redis script and its exact in-memory twin.
 *
 * @example
 * ```ts
 * import { SlidingWindowLog } from "./mod.ts";
 * const log = new SlidingWindowLog(Date.now);
 * const { allowed, resetMs } = log.hit("/api/RateLimited/sliding:alice", 10, 30_000);
 * console.log(allowed ? "200" : `429, retry in ${resetMs} ms`);
 * ```
 *
 * @module
 */
export { decisionFromReply, SLIDING_WINDOW_LUA, SlidingWindowLog, type WindowDecision } from "./sliding_window.ts";
