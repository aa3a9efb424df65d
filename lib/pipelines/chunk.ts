/** The smallest `chunk_size`, in characters. */
export const MIN_CHUNK_SIZE = 100;
/** The largest `chunk_size`, in characters. */
export const MAX_CHUNK_SIZE = 10_000;
/** The `chunk_size` when a request leaves it out. */
export const DEFAULT_CHUNK_SIZE = 1_000;

/** How a text is cut. */
export interface ChunkOptions {
  /** Most characters per chunk, {@link MIN_CHUNK_SIZE} to {@link MAX_CHUNK_SIZE}. */
  readonly chunkSize: number;
  /** Characters of the previous chunk's end (whole words) that the next repeats; below half of `chunkSize`. Default 0. */
  readonly overlap?: number;
}

const isSpace = (code: number) => code === 32 || (code >= 9 && code <= 13) || code === 160;
const isStop = (code: number) => code === 46 || code === 33 || code === 63; // . ! ?

/**
 * Cuts text into chunks of at most `chunkSize` characters (whitespace runs count as one
 * space). A chunk ends at the last sentence end (`.`, `!`, `?` before whitespace, or a blank
 * line) in its second half; failing that at the last word boundary; only a single word longer
 * than `chunkSize` is cut inside. With `overlap`, each chunk starts with the last whole words
 * (up to `overlap` characters) of the one before.
 *
 * @example
 * ```ts
 * chunkText("One two. Three four five.", { chunkSize: 100 }); // ["One two. Three four five."]
 * ```
 */
export function chunkText(text: string, options: ChunkOptions): string[] {
  const size = options.chunkSize;
  const overlap = Math.max(0, Math.min(options.overlap ?? 0, Math.floor(size / 2) - 1));
  if (!(size >= 1)) throw new RangeError(`chunkSize must be at least 1, got ${size}`);
  const source = /\s\s|[\t\n\r\f\v\u00a0]/.test(text) ? normalise(text) : text.trim();
  const chunks: string[] = [];
  const n = source.length;
  let start = 0;
  while (start < n) {
    let end = start + size;
    if (end >= n) {
      chunks.push(source.slice(start));
      break;
    }
    end = cutPoint(source, start, end);
    chunks.push(source.slice(start, end).trimEnd());
    let next = end;
    if (overlap > 0) {
      // Back to the start of a word at most `overlap` characters before the cut, never behind `start`.
      let back = Math.max(start + 1, end - overlap);
      while (back < end && !isSpace(source.charCodeAt(back - 1))) back++;
      next = back;
    }
    while (next < n && isSpace(source.charCodeAt(next))) next++;
    start = next;
  }
  return chunks;
}

/** Where a chunk from `start` that may not pass `limit` ends: a sentence end, a word boundary, or `limit`. */
function cutPoint(text: string, start: number, limit: number): number {
  const half = start + ((limit - start) >> 1);
  // `limit` itself may be a word boundary: the character there is whitespace.
  if (isSpace(text.charCodeAt(limit)) && (isStop(text.charCodeAt(limit - 1)) || text.charCodeAt(limit) === 10)) {
    return limit;
  }
  for (let i = limit - 1; i > half; i--) {
    if (!isSpace(text.charCodeAt(i))) continue;
    if (text.charCodeAt(i) === 10 || isStop(text.charCodeAt(i - 1))) return i;
  }
  if (isSpace(text.charCodeAt(limit))) return limit;
  for (let i = limit - 1; i > start; i--) if (isSpace(text.charCodeAt(i))) return i;
  return limit;
}

/**
 * Paragraphs (ended by a blank line, or a Markdown heading, list item or quote on a line of its
 * own) are joined by one newline, a sentence end for the cutter; other whitespace runs one space.
 */
function normalise(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(HEADING_END, "$1\n\n").replace(BLOCK_START, "\n\n")
    .split(/\n[^\S\n]*\n\s*/).map((p) => p.replace(/\s+/g, " ").trim()).filter(Boolean).join("\n");
}

// A Markdown heading, list item or quote is a paragraph of its own (its line is not run into the next one).
const HEADING_END = /^([^\S\n]*#{1,6}[^\S\n].*)\n/gm;
const BLOCK_START = /\n(?=[^\S\n]*(?:#{1,6}|[-*+]|\d{1,9}[.)]|>)[^\S\n])/g;
