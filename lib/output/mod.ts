/**
 * Output for people and for scripts: json, yaml, table or auto, JMESPath queries, and a
 * stderr logger.
 *
 * @example
 * ```ts
 * import { applyQuery, render } from "./lib/output/mod.ts";
 * const text = render(applyQuery(bdbs, "[].name"), { format: "json", raw: true });
 * ```
 *
 * @module
 */
export { type Format, isFormat, render, type RenderOptions } from "./format.ts";
export { applyQuery, checkQuery } from "./query.ts";
export { createLogger, type Level, LEVELS, type Logger } from "./log.ts";
