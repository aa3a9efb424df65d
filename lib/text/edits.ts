/**
 * Spelling distance between words: for fuzzy search and for "did you mean" suggestions.
 *
 * @example
 * ```ts
 * import { closest, withinEdits } from "./edits.ts";
 * withinEdits("lenght", "length", 2); // true
 * closest("to_strin", ["to_number", "to_string"]); // "to_string"
 * ```
 *
 * @module
 */

/** Whether `a` and `b` are at most `max` edits apart (Levenshtein, stopping early). */
export function withinEdits(a: string, b: string, max: number): boolean {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      const v = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
      row.push(v);
      if (v < best) best = v;
    }
    if (best > max) return false;
    prev = row;
  }
  return prev[b.length] <= max;
}

/** The candidate fewest edits from `word` (at most `max`), or undefined when none is that close. */
export function closest(word: string, candidates: readonly string[], max = 2): string | undefined {
  for (let edits = 1; edits <= max; edits++) {
    const found = candidates.find((candidate) => withinEdits(word, candidate, edits));
    if (found) return found;
  }
  return undefined;
}
