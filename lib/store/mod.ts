/**
 * Key-value store port and its adapters.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from "./lib/store/mod.ts";
 * const store = createMemoryStore();
 * console.log(store.kind); // "memory"
 * ```
 *
 * @module
 */
export type { Store } from "./store.ts";
export { createMemoryStore } from "./memory.ts";
