import MiniSearch from "minisearch";
import { MAX_QUERY_TERMS, queryTerms } from "./bm25.ts";

/** A chunk as an engine indexes it. */
export interface IndexedChunk {
  readonly id: string;
  readonly title: string;
  readonly text: string;
}

/** A full-text engine behind the search index: ids in, ranked ids out. */
export interface SearchEngine {
  /** Adds chunks (an id already there is replaced). */
  add(chunks: readonly IndexedChunk[]): void;
  remove(ids: readonly string[]): void;
  /** The `k` best chunk ids, best first. */
  search(query: string, k: number): { id: string; score: number }[];
  readonly size: number;
}

/** The engines there are: `compact` (default, `bm25.ts`) and `minisearch`. */
export type EngineName = "compact" | "minisearch";

/**
 * MiniSearch (BM25+, title boosted 2×, prefix matching of the last query term, fuzzy matching
 * within 20 % edits for terms of 5+ characters; a query of more than {@link MAX_QUERY_TERMS}
 * distinct terms is cut to its first ones). It scores every posting of every query term
 * (~1 µs each here) and keeps postings in nested Maps: `bench/pipelines_bench.ts` measured
 * 4 MB/s indexing and a p99 near 1 s at 100,000 chunks, hence the compact engine by default.
 */
export function createMiniSearchEngine(): SearchEngine {
  const index = new MiniSearch<IndexedChunk>({
    fields: ["title", "text"],
    storeFields: [],
    searchOptions: {
      boost: { title: 2 },
      // Prefix only for the last term (the one being typed): each expansion scores its whole posting list.
      prefix: (term, i, terms) => i === terms.length - 1 && term.length >= 3,
      fuzzy: (term) => term.length >= 5 ? 0.2 : false,
      combineWith: "OR",
    },
  });
  return {
    add(chunks) {
      for (const chunk of chunks) if (index.has(chunk.id)) index.discard(chunk.id);
      index.addAll(chunks);
    },
    remove(ids) {
      for (const id of ids) if (index.has(id)) index.discard(id);
    },
    search(query, k) {
      // MiniSearch reads the query's words itself: it is given the terms that carry meaning.
      const terms = queryTerms(query).slice(0, MAX_QUERY_TERMS).join(" ");
      return index.search(terms).slice(0, k).map((r) => ({ id: String(r.id), score: r.score }));
    },
    get size() {
      return index.documentCount;
    },
  };
}
