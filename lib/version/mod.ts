/**
 * The storectl version, read from `package.json`: the one place it is written.
 *
 * @example
 * ```ts
 * import { VERSION } from "./mod.ts";
 * console.log(`storectl ${VERSION}`);
 * ```
 *
 * @module
 */
import manifest from "../../package.json" with { type: "json" };

/** The version of `ctl`, the service and the emulator. */
export const VERSION: string = manifest.version;
