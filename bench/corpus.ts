/**
 * The benchmarks' generated text: sentences of 8–20 pseudo-words drawn Zipf-like from a
 * 30,000-word vocabulary of syllables, a blank line every ~10 sentences. Deterministic: the
 * same calls give the same text in every run.
 *
 * @module
 */

/** A deterministic pseudo-random source (mulberry32). */
export function random(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The source the vocabulary and the text are drawn from. */
export const rand: () => number = random(42);
const SYLLABLES = ["ka", "lo", "mi", "ren", "sa", "tor", "vel", "qui", "dan", "esh", "or", "pi", "lum", "zet", "bra"];
/** 30,000 pseudo-words of 2–4 syllables. */
export const VOCABULARY: readonly string[] = Array.from({ length: 30_000 }, () => {
  const n = 2 + Math.floor(rand() * 3);
  return Array.from({ length: n }, () => SYLLABLES[Math.floor(rand() * SYLLABLES.length)]).join("");
});
/** A word of the vocabulary, Zipf-like: low indexes are common. */
export const word = (): string => VOCABULARY[Math.floor(VOCABULARY.length * rand() ** 3)];

/** About `bytes` characters of sentences. */
export function documentText(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  while (size < bytes) {
    const n = 8 + Math.floor(rand() * 12);
    const sentence = Array.from({ length: n }, word).join(" ");
    const s = sentence[0].toUpperCase() + sentence.slice(1) + (rand() < 0.1 ? ".\n\n" : ". ");
    parts.push(s);
    size += s.length;
  }
  return parts.join("");
}
