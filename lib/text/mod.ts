/**
 * Text: wrapping for a terminal's width (`wrap.ts`), digests as hex (`hash.ts`), stop words (`stop_words.ts`),
 * and the edit distances behind near spellings (`edits.ts`).
 *
 * @example
 * ```ts
 * import { wrapLine } from "./mod.ts";
 * wrapLine("a long line of words that does not fit", 20); // "a long line of words\nthat does not fit"
 * ```
 *
 * @module
 */
export { digestHex, hex } from "./hash.ts";
export { contentWords, STOP_WORDS } from "./stop_words.ts";
export { reflow, wrapHelp, wrapLine } from "./wrap.ts";
