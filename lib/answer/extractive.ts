import type { SearchHit } from "../pipelines/mod.ts";
import { contentWords } from "../text/mod.ts";

/** A chunk an answer cites; its place in `sources` (from 1) is its `[n]` marker. */
export interface AnswerSource {
  title: string;
  source: string;
  chunk_id: string;
  score: number;
}

/** An answer with the sources its `[n]` markers point at. */
export interface Answer {
  answer: string;
  sources: AnswerSource[];
}

/** At most this many sentences make an extractive answer. */
export const MAX_SENTENCES = 3;

/** The lower-case words of `text` (letters and digits, Unicode-aware). */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The question's terms: its distinct words of 2+ characters that are not stop words (all of them if only stop words). */
export function questionTerms(question: string): string[] {
  return contentWords([...new Set(words(question).filter((w) => w.length >= 2))]);
}

/**
 * The sentences of a chunk: split after `.`, `!` or `?` followed by a space, and at each line end
 * (a chunk's paragraphs, `chunkText`); whitespace collapsed. A Markdown heading is no sentence (it
 * names what follows), and a list item's or quote's marker is no part of one.
 */
export function sentences(text: string): string[] {
  return text.split("\n").filter((line) => !HEADING.test(line))
    .flatMap((line) => line.replace(BLOCK_MARKER, "").split(/(?<=[.!?])\s+/))
    .map((s) => s.replace(/\s+/g, " ").trim()).filter((s) => s !== "");
}

const HEADING = /^\s*#{1,6}\s/;
const BLOCK_MARKER = /^\s*(?:[-*+]|\d{1,9}[.)]|>)\s+/;

// A word matches a term when equal, or when one starts with the other and the shorter has 4+ characters
// ("index" and "indexes", "chunk" and "chunking").
const matches = (word: string, term: string) =>
  word === term || (Math.min(word.length, term.length) >= 4 && (word.startsWith(term) || term.startsWith(word)));

/** How many of `terms` the sentence contains. */
export function sentenceScore(sentence: string, terms: readonly string[]): number {
  const ws = words(sentence);
  return terms.filter((term) => ws.some((w) => matches(w, term))).length;
}

/**
 * The extractive answer to `question` from `hits` (best first), by these rules:
 *
 * 1. Every hit is split into sentences ({@link sentences}); each sentence scores the number of the
 *    question's terms ({@link questionTerms}) it contains.
 * 2. The best {@link MAX_SENTENCES} sentences with a score above 0 are picked: higher score first,
 *    then the better-ranked hit, then the earlier sentence; a sentence already picked (same text) is skipped.
 *    When no sentence scores (the index matched by prefix or fuzzily), the first sentence of the best hit is used.
 * 3. They are put back in reading order: by the rank of their hit, then their place in it.
 * 4. Each run of sentences from one hit ends with its marker `[n]`; `sources` lists the hits cited,
 *    numbered in order of first citation, each once.
 *
 * @example
 * ```ts
 * const hit = { chunk_id: "c1", document_id: "d1", title: "Redis", source: "redis.md", score: 2,
 *   text: "Redis is an in-memory store. It is fast." };
 * extractiveAnswer("What is Redis?", [hit]).answer; // "Redis is an in-memory store. [1]"
 * ```
 */
export function extractiveAnswer(question: string, hits: readonly SearchHit[]): Answer {
  const terms = questionTerms(question);
  const candidates = hits.flatMap((hit, rank) =>
    sentences(hit.text).map((text, position) => ({ hit, rank, position, text, score: sentenceScore(text, terms) }))
  );
  const ranked = candidates.filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score || a.rank - b.rank || a.position - b.position);
  const picked: typeof candidates = [];
  const seen = new Set<string>();
  for (const candidate of ranked) {
    if (picked.length === MAX_SENTENCES) break;
    if (seen.has(candidate.text)) continue;
    seen.add(candidate.text);
    picked.push(candidate);
  }
  if (picked.length === 0 && candidates.length > 0) picked.push(candidates[0]);
  picked.sort((a, b) => a.rank - b.rank || a.position - b.position);

  const sources: AnswerSource[] = [];
  const parts: string[] = [];
  picked.forEach((sentence, i) => {
    let n = sources.findIndex((s) => s.chunk_id === sentence.hit.chunk_id) + 1;
    if (n === 0) n = sources.push(toSource(sentence.hit));
    const last = i === picked.length - 1 || picked[i + 1].hit.chunk_id !== sentence.hit.chunk_id;
    parts.push(last ? `${sentence.text} [${n}]` : sentence.text);
  });
  return { answer: parts.join(" "), sources };
}

/** The source entry of a hit. */
export function toSource(hit: SearchHit): AnswerSource {
  return { title: hit.title, source: hit.source, chunk_id: hit.chunk_id, score: hit.score };
}

/** Splits text into word-sized tokens (each word with the whitespace before it); joined, they give the text back. */
export function wordTokens(text: string): string[] {
  return text.match(/\s*\S+/g) ?? [];
}
