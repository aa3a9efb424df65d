/**
 * Fixed chunks and a small retriever over them, for the `answer` task tests: a chunk matches when
 * it contains a word of the query (4+ characters share a prefix), scored by how many it contains.
 *
 * @module
 */
import type { Retriever, SearchHit } from "../lib/answer/mod.ts";

export const CHUNKS: readonly SearchHit[] = [
  {
    chunk_id: "redis-1",
    document_id: "redis",
    title: "Redis basics",
    source: "docs/redis.md",
    text: "Redis keeps its data in memory. It writes snapshots to disk for persistence.",
    score: 0,
  },
  {
    chunk_id: "limits-1",
    document_id: "limits",
    title: "Rate limiting",
    source: "docs/limits.md",
    text: "The sliding window log counts requests of the last 30 seconds. A Lua script trims and counts in one step.",
    score: 0,
  },
  {
    chunk_id: "tasks-1",
    document_id: "tasks",
    title: "Tasks",
    source: "docs/tasks.md",
    text: "A task can spawn sub-tasks. Cancelling a task cancels its sub-tasks too.",
    score: 0,
  },
];

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
const same = (a: string, b: string) =>
  a === b || (Math.min(a.length, b.length) >= 4 && (a.startsWith(b) || b.startsWith(a)));
const IGNORED = new Set(["the", "what", "how", "does", "is", "a", "an", "of", "in", "to", "and", "its", "it"]);

/** A retriever over `chunks`; `searches` records each query. */
export function fixedRetriever(chunks: readonly SearchHit[] = CHUNKS): Retriever & { searches: string[] } {
  const searches: string[] = [];
  return {
    searches,
    search(query, k) {
      searches.push(query);
      const terms = words(query).filter((w) => !IGNORED.has(w));
      const hits = chunks.map((chunk) => {
        const ws = words(chunk.text);
        return { ...chunk, score: terms.filter((t) => ws.some((w) => same(w, t))).length };
      }).filter((h) => h.score > 0).sort((a, b) => b.score - a.score);
      return Promise.resolve(hits.slice(0, k));
    },
  };
}
