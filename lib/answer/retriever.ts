// These two interfaces mirror lib/pipelines/mod.ts (built in parallel); once both are merged,
// import them from there instead.

/** One retrieved chunk, best first in a search's answer. */
export interface SearchHit {
  chunk_id: string;
  document_id: string;
  title: string;
  source: string;
  text: string;
  score: number;
}

/** Finds the `k` chunks that best match a query (the document index). */
export interface Retriever {
  search(query: string, k: number): Promise<SearchHit[]>;
}
