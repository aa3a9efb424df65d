/**
 * Time: the one abortable wait of the code base.
 *
 * @example
 * ```ts
 * import { sleep } from "./mod.ts";
 * await sleep(5, AbortSignal.timeout(1_000));
 * ```
 *
 * @module
 */
export { sleep } from "./sleep.ts";
