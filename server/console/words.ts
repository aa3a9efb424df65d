/**
 * Counts in words: `counted(1, "best match", "best matches")` is "1 best match".
 *
 * @module
 */

/** `n` and the noun in the number it needs; the plural is the singular with an `s` unless given. */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
