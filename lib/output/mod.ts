/**
 * Output for people and for scripts: json, yaml, table or auto, JMESPath queries, and a
 * stderr logger.
 *
 * @example
 * ```ts
 * import { applyQuery, render } from "./mod.ts";
 * const text = await render(await applyQuery([{ name: "a" }], "[].name"), { format: "raw" });
 * ```
 *
 * @module
 */
export { type Format, isFormat, render, type RenderOptions } from "./format.ts";
export { cellValue, type ColumnRole, type TableColumn } from "./table.ts";
export { colorJson } from "./json_color.ts";
export { applyQuery, checkQuery, preloadQuery } from "./query.ts";
export { createLogger, type Level, LEVELS, type Logger } from "./log.ts";
export { formatSize, parseSize, SIZE_UNITS } from "./size.ts";
