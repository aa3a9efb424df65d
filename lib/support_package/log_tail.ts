/** Keeps the last lines of a text fed chunk by chunk, in memory bounded by the lines kept. */

/** The most bytes a tail holds, whatever the line count asked for: a guard against huge lines. */
export const MAX_TAIL_BYTES = 16 * 1024 * 1024;

/** What `LogTail.finish()` returns. */
export interface TailResult {
  /** The bytes kept: the whole text when nothing was cut, else the last lines. */
  readonly bytes: Uint8Array<ArrayBuffer>;
  /** Lines in the whole text (a last line without `\n` counts). */
  readonly totalLines: number;
  /** Lines cut from the start; 0 when the text was kept whole. */
  readonly linesCut: number;
}

const NL = 10;

/** A chunk longer than this is taken in pieces of this size: what a tail holds grows by one at most. */
export const TAIL_PIECE_BYTES = 1024 * 1024;

/** A kept piece whose buffer is larger than it by more than this is copied, so the rest is freed. */
const SPARE_BYTES = 64 * 1024;

const NONE = new Uint8Array(0);

/**
 * The last `lines` lines of a text, fed as chunks. It holds only the pieces that may still
 * contain one of those lines (at most `maxBytes`, beyond which the oldest kept lines are cut
 * too), and counts every line so the caller can say how many were cut. What it holds does not
 * depend on the chunks' sizes: a large chunk is taken in pieces of `TAIL_PIECE_BYTES`, and a kept
 * piece of a larger buffer is copied (a stream's chunk of 64 MiB is not kept for its last line).
 *
 * @example
 * ```ts
 * import { LogTail } from "./log_tail.ts";
 * const tail = new LogTail(2);
 * tail.push(new TextEncoder().encode("a\nb\nc\n"));
 * const { bytes, linesCut } = tail.finish(); // "b\nc\n", 1
 * ```
 */
export class LogTail {
  readonly #lines: number;
  readonly #maxBytes: number;
  #chunks: { bytes: Uint8Array<ArrayBuffer>; newlines: number }[] = [];
  #first = 0;
  #heldBytes = 0;
  #heldNewlines = 0;
  #dropped = false;
  #totalNewlines = 0;
  #lastByte = -1;

  constructor(lines: number, maxBytes = MAX_TAIL_BYTES) {
    this.#lines = lines;
    this.#maxBytes = maxBytes;
  }

  /**
   * Adds the next chunk. It is kept as it is, not copied (stream chunks are never reused), so
   * the scan of every log byte costs no copy; only a kept piece of a larger buffer is copied.
   */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    const pieces = Math.ceil(chunk.length / TAIL_PIECE_BYTES);
    for (let at = 0; at < chunk.length; at += TAIL_PIECE_BYTES) {
      this.#pushPiece(chunk.subarray(at, at + TAIL_PIECE_BYTES) as Uint8Array<ArrayBuffer>);
    }
    for (let i = Math.max(this.#chunks.length - pieces, this.#first); i < this.#chunks.length; i++) {
      const held = this.#chunks[i];
      if (held.bytes.buffer.byteLength - held.bytes.length > SPARE_BYTES) held.bytes = held.bytes.slice();
    }
  }

  /** The bytes the tail holds, counting whole buffers: what it keeps from being freed. */
  get retainedBytes(): number {
    const buffers = new Set(this.#chunks.slice(this.#first).map((c) => c.bytes.buffer));
    return [...buffers].reduce((sum, buffer) => sum + buffer.byteLength, 0);
  }

  #pushPiece(bytes: Uint8Array<ArrayBuffer>): void {
    const newlines = countNewlines(bytes);
    this.#totalNewlines += newlines;
    this.#lastByte = bytes[bytes.length - 1];
    this.#chunks.push({ bytes, newlines });
    this.#heldBytes += bytes.length;
    this.#heldNewlines += newlines;
    // N + 1 newlines held are enough to find where the last N lines start.
    while (this.#chunks.length - this.#first > 1) {
      const oldest = this.#chunks[this.#first];
      const enoughLines = this.#heldNewlines - oldest.newlines >= this.#lines + 1;
      if (!enoughLines && this.#heldBytes <= this.#maxBytes) break;
      this.#chunks[this.#first++] = { bytes: NONE, newlines: 0 }; // its buffer can go now
      this.#heldBytes -= oldest.bytes.length;
      this.#heldNewlines -= oldest.newlines;
      this.#dropped = true;
    }
    if (this.#first > 64 && this.#first * 2 > this.#chunks.length) {
      this.#chunks = this.#chunks.slice(this.#first);
      this.#first = 0;
    }
  }

  /** The kept bytes and the line counts. */
  finish(): TailResult {
    const held = concat(this.#chunks.slice(this.#first).map((c) => c.bytes), this.#heldBytes);
    const endsWithNewline = this.#lastByte === NL;
    const totalLines = this.#totalNewlines + (this.#lastByte === -1 || endsWithNewline ? 0 : 1);
    if (totalLines <= this.#lines && !this.#dropped) return { bytes: held, totalLines, linesCut: 0 };
    // The kept lines start after the (N+1)-th newline from the end (N-th without a final newline).
    const need = this.#lines + (endsWithNewline ? 1 : 0);
    let found = 0;
    let pos = held.length;
    while (found < need && pos > 0) {
      const at = held.lastIndexOf(NL, pos - 1);
      if (at === -1) break;
      found++;
      pos = at;
    }
    // Short of newlines only when the byte cap cut the text mid-line: start at a whole line if any.
    let start = found === need || found > 0 ? pos + 1 : 0;
    if (start >= held.length) start = 0;
    const bytes = held.slice(start);
    let keptLines = countNewlines(bytes);
    if (bytes.length > 0 && !endsWithNewline) keptLines++;
    return { bytes, totalLines, linesCut: totalLines - keptLines };
  }
}

/**
 * The `\n` bytes in `bytes`, four at a time (a SWAR zero-byte count): 3-6× a byte loop, and the
 * scan every log byte goes through.
 */
export function countNewlines(bytes: Uint8Array): number {
  let n = 0;
  let i = 0;
  while (i < bytes.length && (bytes.byteOffset + i) % 4 !== 0) if (bytes[i++] === NL) n++;
  const words = (bytes.length - i) >>> 2;
  const view = words > 0 ? new Uint32Array(bytes.buffer, bytes.byteOffset + i, words) : new Uint32Array(0);
  for (let w = 0; w < words; w++) {
    const x = view[w] ^ 0x0a0a0a0a; // a zero byte where the byte was \n
    const zeros = ~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x | 0x7f7f7f7f); // its high bit set
    if (zeros !== 0) n += Math.imul((zeros >>> 7) & 0x01010101, 0x01010101) >>> 24;
  }
  for (i += words * 4; i < bytes.length; i++) if (bytes[i] === NL) n++;
  return n;
}

function concat(chunks: readonly Uint8Array<ArrayBuffer>[], length: number): Uint8Array<ArrayBuffer> {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
