/**
 * Spelling distance between words: for fuzzy search and for "did you mean" suggestions.
 *
 * @example
 * ```ts
 * import { closest, nearWords, withinEdits } from "./edits.ts";
 * withinEdits("lenght", "length", 2); // true
 * closest("to_strin", ["to_number", "to_string"]); // "to_string"
 * nearWords(["lemon", "length", "lengths"], "lenght", 2, (i, edits) => console.log(i, edits)); // 1 2, 2 2
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

/** Limits of a {@link nearWords} walk. */
export interface NearWordsOptions {
  /** Only words that begin with this many of `word`'s first characters (as a search engine's `prefix_length`). Default 0. */
  readonly prefix?: number;
  /** The most rows of the edit table computed; the walk stops there. Default: no limit. */
  readonly steps?: number;
}

/**
 * Calls `each(index, edits)` for every word of `sorted` (ascending, by code unit) at most `max`
 * edits from `word`, in order. It walks the list as a trie: words sharing a prefix share its rows
 * of the edit table, only the cells within `max` of the diagonal are computed, and once a prefix
 * is more than `max` edits from every start of `word`, the words that begin with it are skipped by
 * bisection. So the work grows with the prefixes near `word`, not with the size of the list.
 * Returns the steps it took (rows computed): `options.steps` when it stopped there.
 */
export function nearWords(
  sorted: readonly string[],
  word: string,
  max: number,
  each: (index: number, edits: number) => void,
  options: NearWordsOptions = {},
): number {
  const n = word.length;
  const far = max + 1; // every distance beyond `max` is the same to this search
  const first = new Int32Array(n + 2).fill(far);
  for (let j = 0; j <= Math.min(n, max); j++) first[j] = j;
  const rows = [first];
  const start = word.slice(0, options.prefix ?? 0);
  /** Whether `s` begins with the first `length` characters of `of`. */
  const begins = (s: string, of: string, length: number) => {
    if (s.length < length) return false;
    for (let k = 0; k < length; k++) if (s.charCodeAt(k) !== of.charCodeAt(k)) return false;
    return true;
  };
  /**
   * The first index from `from` (below `to`) whose word does not begin with `of`'s first `length`
   * characters: those that do are contiguous, and usually few, so it gallops before it bisects.
   */
  const after = (of: string, length: number, from: number, to: number) => {
    let step = 1;
    while (from + step < to && begins(sorted[from + step - 1], of, length)) step *= 2;
    let lo = from + (step >> 1), hi = Math.min(from + step, to);
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (begins(sorted[mid], of, length)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  let lo = 0, hi = sorted.length; // the first word not below `start`
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < start) lo = mid + 1;
    else hi = mid;
  }
  const end = start ? after(start, start.length, lo, sorted.length) : sorted.length;
  const limit = options.steps ?? Infinity;
  let steps = 0;
  let held = "", heldLength = 0; // `rows[1..heldLength]` hold the rows of `held`'s first characters
  for (let i = lo; i < end;) {
    const term = sorted[i];
    let depth = 0;
    const shared = Math.min(heldLength, term.length);
    while (depth < shared && held.charCodeAt(depth) === term.charCodeAt(depth)) depth++;
    let dead = false;
    while (depth < term.length && !dead) {
      if (steps === limit) return steps;
      steps++;
      const d = ++depth;
      const up = rows[d - 1];
      const row = rows[d] ??= new Int32Array(n + 2);
      const from = Math.max(0, d - max), to = Math.min(n, d + max);
      const c = term.charCodeAt(d - 1);
      let best = far;
      if (from === 0) best = row[0] = Math.min(d, far);
      else row[from - 1] = far;
      for (let j = Math.max(1, from); j <= to; j++) {
        const v = Math.min(up[j] + 1, row[j - 1] + 1, up[j - 1] + (word.charCodeAt(j - 1) === c ? 0 : 1), far);
        row[j] = v;
        if (v < best) best = v;
      }
      row[to + 1] = far;
      dead = best > max;
    }
    held = term;
    heldLength = depth;
    if (dead) {
      i = after(term, depth, i + 1, end); // no word beginning with these characters comes within `max`
      continue;
    }
    const edits = Math.abs(term.length - n) <= max ? rows[term.length][n] : far;
    if (edits <= max) each(i, edits);
    i++;
  }
  return steps;
}
