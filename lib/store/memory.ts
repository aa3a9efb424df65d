import type { Store } from "./store.ts";

/**
 * The embedded in-process store, the default: nothing to install or run, and exact.
 *
 * @example
 * ```ts
 * const store = createMemoryStore();
 * await store.ping(); // always reachable
 * ```
 */
export function createMemoryStore(): Store {
  return {
    kind: "memory",
    ping: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}
