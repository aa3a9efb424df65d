/**
 * storectl as a library: the web service, its stores, and the management API emulator.
 *
 * @example
 * ```ts
 * import { createApp, createEmulator, createMemoryStore, DEFAULT_OPTIONS } from "./mod.ts";
 * const app = createApp({ store: createMemoryStore() });
 * const emulator = createEmulator({ ...DEFAULT_OPTIONS, taskDelayMs: 0 });
 * ```
 *
 * @module
 */
export { createMemoryStore, type Store } from "./lib/store/mod.ts";
export { createApp, type ServerDeps } from "./server/mod.ts";
export { createEmulator, DEFAULT_OPTIONS, type Emulator, type EmulatorOptions } from "./server/emulator/mod.ts";
