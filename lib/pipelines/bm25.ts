import type { SearchEngine } from "./engine.ts";
import { nearWords } from "../text/edits.ts";
import { contentWords } from "../text/mod.ts";

const K1 = 1.2;
const B = 0.75;
/** Weight of a term matched by prefix or by a near spelling, against 1 for the exact term. */
const EXPANSION_WEIGHT = 0.5;
/** Prefix expansions scored per query, the most frequent first. */
const MAX_EXPANSIONS = 20;
/** The distinct terms of a query that are searched (the first ones); `GET /pipelines/search` refuses more. */
export const MAX_QUERY_TERMS = 32;
/** Near spellings scored per query term the index does not hold, the fewest edits away first. */
export const MAX_NEAR_SPELLINGS = 10;
/**
 * Steps (rows of the edit table, see `nearWords`) a query may take looking for near spellings,
 * its terms in order: 12–20 ms on a 2-core VM over a vocabulary of ~400,000 random words. A term
 * whose turn comes after them matches exactly and by prefix only.
 */
export const NEAR_SPELLING_STEPS = 100_000;

/** Lower-case runs of letters and digits (the tokens `scanTokens` finds, as strings). */
export function tokenize(text: string): string[] {
  const lowered = text.toLowerCase();
  const tokens: string[] = [];
  scanTokens(lowered, (start, end) => tokens.push(lowered.slice(start, end)));
  return tokens;
}

/**
 * A query's distinct terms that carry meaning (stop words left out, unless it has nothing else),
 * in order of first appearance (engines search the first {@link MAX_QUERY_TERMS}).
 */
export function queryTerms(query: string): string[] {
  return contentWords([...new Set(tokenize(query))]);
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * Calls `each(start, end, hash)` for every token of `lowered` (lower-cased text) — each run of
 * letters and digits (`\p{L}`, `\p{N}`) — as positions and an FNV-1a hash instead of a string,
 * so indexing looks a known term up by number and makes a string only for a term it has not seen.
 *
 * @example
 * ```ts
 * const spans: string[] = [];
 * scanTokens("déjà vu, 42", (start, end) => spans.push("déjà vu, 42".slice(start, end)));
 * spans; // ["déjà", "vu", "42"]
 * ```
 */
export function scanTokens(lowered: string, each: (start: number, end: number, hash: number) => void): void {
  let start = -1;
  let hash = 0;
  for (let i = 0; i < lowered.length;) {
    const c = lowered.charCodeAt(i);
    let width = 1;
    let word: boolean;
    if (c < 128) word = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
    else {
      const point = lowered.codePointAt(i)!;
      if (point > 0xffff) width = 2;
      word = WORD_CHAR.test(String.fromCodePoint(point));
    }
    if (word) {
      if (start < 0) {
        start = i;
        hash = 0x811c9dc5;
      }
      hash = Math.imul(hash ^ c, 0x01000193);
      if (width === 2) hash = Math.imul(hash ^ lowered.charCodeAt(i + 1), 0x01000193);
    } else if (start >= 0) {
      each(start, i, hash >>> 0);
      start = -1;
    }
    i += width;
  }
  if (start >= 0) each(start, lowered.length, hash >>> 0);
}

/** A term's postings: internal document numbers and term frequencies, in growable typed arrays. */
class Postings {
  readonly term: string;
  docs = new Int32Array(4);
  tfs = new Uint16Array(4);
  n = 0;
  constructor(term: string) {
    this.term = term;
  }
  push(doc: number, tf: number) {
    if (this.n === this.docs.length) {
      const docs = new Int32Array(this.n * 2);
      docs.set(this.docs);
      this.docs = docs;
      const tfs = new Uint16Array(this.n * 2);
      tfs.set(this.tfs);
      this.tfs = tfs;
    }
    this.docs[this.n] = doc;
    this.tfs[this.n++] = Math.min(tf, 65_535);
  }
}

/** Terms and their postings, by the term (queries) and by its hash (indexing, see `scanTokens`). */
type Vocabulary = Record<string, Postings | undefined>;
const vocabulary = (): Vocabulary => Object.create(null);
type ByHash = Map<number, Postings | Postings[]>;

function remember(byHash: ByHash, hash: number, postings: Postings) {
  const known = byHash.get(hash);
  if (known === undefined) byHash.set(hash, postings);
  else if (Array.isArray(known)) known.push(postings);
  else byHash.set(hash, [known, postings]); // two terms, one hash
}

/** The postings of the term at `text[start, end)` with this hash, if the vocabulary has it. */
function lookup(byHash: ByHash, text: string, start: number, end: number, hash: number): Postings | undefined {
  const known = byHash.get(hash);
  if (known === undefined || !Array.isArray(known)) return known && matches(known, text, start, end);
  return known.find((p) => matches(p, text, start, end));
}

const matches = (p: Postings, text: string, start: number, end: number) =>
  p.term.length === end - start && text.startsWith(p.term, start) ? p : undefined;

/**
 * A compact in-memory BM25 engine: postings in typed arrays (~6 bytes per term occurrence per
 * chunk), scores accumulated in one array per query, top-k kept by insertion. Title words count
 * twice; the last query term also matches as a prefix (3+ characters, the 20 most frequent
 * completions) and a term the index does not hold matches words with the same first letter one
 * edit away (two from 9 characters on; the {@link MAX_NEAR_SPELLINGS} closest), both at half
 * weight. A query's work is bounded: its first {@link MAX_QUERY_TERMS} distinct terms are
 * searched, and near spellings are found by walking the sorted vocabulary as a trie
 * (`nearWords`), in at most {@link NEAR_SPELLING_STEPS} steps per query (`nearSpellingSteps`).
 * Removed chunks are skipped until a compaction drops them; document frequencies count live
 * chunks only, so every process holding the same chunks computes the same scores.
 *
 * @example
 * ```ts
 * const engine = createBm25Engine();
 * engine.add([{ id: "c1", title: "Redis", text: "Streams keep order." }]);
 * engine.search("stream", 5); // [{ id: "c1", score: … }]
 * ```
 */
export function createBm25Engine(options: { nearSpellingSteps?: number } = {}): SearchEngine {
  let terms = vocabulary();
  let byHash: ByHash = new Map();
  let sorted: string[] = []; // the vocabulary in order, for prefixes and near spellings
  let fresh: string[] = []; // terms added since, merged into `sorted` by the next search
  /** The vocabulary in order: new terms are sorted and merged in, not the whole vocabulary sorted again. */
  const inOrder = (): string[] => {
    if (fresh.length === 0) return sorted;
    fresh.sort();
    const merged: string[] = new Array(sorted.length + fresh.length);
    let i = 0, j = 0, out = 0;
    while (i < sorted.length && j < fresh.length) merged[out++] = sorted[i] < fresh[j] ? sorted[i++] : fresh[j++];
    while (i < sorted.length) merged[out++] = sorted[i++];
    while (j < fresh.length) merged[out++] = fresh[j++];
    fresh = [];
    return sorted = merged;
  };
  const byId = new Map<string, number>();
  let ids: (string | undefined)[] = [];
  let lens = new Uint32Array(1024);
  let alive = new Uint8Array(1024);
  let next = 0;
  let live = 0;
  let totalLen = 0;
  let dead = 0;

  const grow = () => {
    const l = new Uint32Array(lens.length * 2);
    l.set(lens);
    lens = l;
    const a = new Uint8Array(alive.length * 2);
    a.set(alive);
    alive = a;
  };
  const remove = (id: string) => {
    const doc = byId.get(id);
    if (doc === undefined) return;
    byId.delete(id);
    ids[doc] = undefined;
    alive[doc] = 0;
    live--;
    totalLen -= lens[doc];
    dead++;
  };
  /** Drops removed chunks from the postings once they are as many as the live ones. */
  const compact = () => {
    const kept = vocabulary();
    const keptByHash: ByHash = new Map();
    for (const [hash, known] of byHash) {
      for (const p of Array.isArray(known) ? known : [known]) {
        const q = new Postings(p.term);
        for (let i = 0; i < p.n; i++) if (alive[p.docs[i]]) q.push(p.docs[i], p.tfs[i]);
        if (q.n === 0) continue;
        kept[p.term] = q;
        remember(keptByHash, hash, q);
      }
    }
    terms = kept;
    byHash = keptByHash;
    sorted = Object.keys(kept).sort();
    fresh = [];
    dead = 0;
    if (live === 0) { // start numbering again
      ids = [];
      next = 0;
    }
  };

  /** The terms `token` stands for, with their weights; near spellings take steps from `budget`. */
  const expansions = (token: string, last: boolean, budget: { steps: number }): Map<string, number> => {
    const out = new Map<string, number>();
    if (terms[token]) out.set(token, 1);
    if (last && token.length >= 3) {
      const sorted = inOrder();
      let lo = 0, hi = sorted.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (sorted[mid] < token) lo = mid + 1;
        else hi = mid;
      }
      const found: string[] = [];
      for (let i = lo; i < sorted.length && sorted[i].startsWith(token); i++) {
        if (sorted[i] !== token) found.push(sorted[i]);
      }
      found.sort((a, b) => terms[b]!.n - terms[a]!.n);
      for (const term of found.slice(0, MAX_EXPANSIONS)) out.set(term, EXPANSION_WEIGHT);
    }
    if (!terms[token] && token.length >= 5) {
      const sorted = inOrder();
      const near: { term: string; edits: number }[] = [];
      const found = (i: number, edits: number) => near.push({ term: sorted[i], edits });
      budget.steps -= nearWords(sorted, token, token.length >= 9 ? 2 : 1, found, { prefix: 1, steps: budget.steps });
      near.sort((a, b) => a.edits - b.edits || terms[b.term]!.n - terms[a.term]!.n || (a.term < b.term ? -1 : 1));
      for (const { term } of near.slice(0, MAX_NEAR_SPELLINGS)) if (!out.has(term)) out.set(term, EXPANSION_WEIGHT);
    }
    return out;
  };

  return {
    add(chunks) {
      for (const chunk of chunks) {
        remove(chunk.id);
        if (next === lens.length) grow();
        const doc = next++;
        let len = 0;
        // One lookup by hash per token: a term met again in this chunk adds to its last posting.
        const count = (text: string, by: number) =>
          scanTokens(text, (start, end, hash) => {
            len++;
            let p = lookup(byHash, text, start, end, hash);
            if (!p) {
              p = new Postings(text.slice(start, end));
              terms[p.term] = p;
              remember(byHash, hash, p);
              fresh.push(p.term);
            }
            if (p.n > 0 && p.docs[p.n - 1] === doc) p.tfs[p.n - 1] = Math.min(p.tfs[p.n - 1] + by, 65_535);
            else p.push(doc, by);
          });
        count(chunk.title.toLowerCase(), 2);
        count(chunk.text.toLowerCase(), 1);
        ids[doc] = chunk.id;
        byId.set(chunk.id, doc);
        lens[doc] = len;
        alive[doc] = 1;
        live++;
        totalLen += len;
      }
    },
    remove(list) {
      for (const id of list) remove(id);
      if (dead > 10_000 && dead > live) compact();
    },
    search(query, k) {
      if (live === 0 || k <= 0) return [];
      const tokens = queryTerms(query).slice(0, MAX_QUERY_TERMS);
      const weights = new Map<string, number>();
      const budget = { steps: options.nearSpellingSteps ?? NEAR_SPELLING_STEPS };
      tokens.forEach((token, i) => {
        for (const [term, w] of expansions(token, i === tokens.length - 1, budget)) {
          weights.set(term, Math.max(weights.get(term) ?? 0, w));
        }
      });
      if (weights.size === 0) return [];
      const scores = new Float64Array(next);
      const touched: number[] = [];
      const avgLen = totalLen / live;
      for (const [term, weight] of weights) {
        const p = terms[term]!;
        let df = 0;
        for (let i = 0; i < p.n; i++) df += alive[p.docs[i]];
        if (df === 0) continue;
        const idf = weight * Math.log(1 + (live - df + 0.5) / (df + 0.5));
        for (let i = 0; i < p.n; i++) {
          const doc = p.docs[i];
          if (!alive[doc]) continue;
          const tf = p.tfs[i];
          if (scores[doc] === 0) touched.push(doc);
          scores[doc] += idf * (tf * (K1 + 1)) / (tf + K1 * (1 - B + B * lens[doc] / avgLen));
        }
      }
      // Top k by insertion; ties go to the smaller id so every process orders them alike.
      const top: number[] = [];
      const better = (a: number, b: number) => scores[a] > scores[b] || (scores[a] === scores[b] && ids[a]! < ids[b]!);
      for (const doc of touched) {
        if (top.length === k && !better(doc, top[k - 1])) continue;
        let i = top.length === k ? k - 1 : top.length;
        while (i > 0 && better(doc, top[i - 1])) {
          top[i] = top[i - 1];
          i--;
        }
        top[i] = doc;
      }
      return top.map((doc) => ({ id: ids[doc]!, score: scores[doc] }));
    },
    get size() {
      return live;
    },
  };
}
