/**
 * Keeps oversized tar metadata away from the tar decoder. A PAX header or a GNU long name may be
 * up to 8 MiB for the decoder, which then holds it as bytes and as strings (several copies per
 * entry, freed only by a full garbage collection): 80 entries with 8 MB names took 1.9 GB on
 * Deno. The guard reads the archive's block structure as the decoder does and puts a small PAX
 * header naming the size in place of any metadata entry larger than `MAX_META_BYTES`; the entry
 * it described is then refused by rule 1 (its name and attributes are unknown).
 */

/** Metadata entries (PAX headers, GNU long names) larger than this are not read. */
export const MAX_META_BYTES = 64 * 1024;

/** The PAX key of the header put in place of an oversized metadata entry; its value is that entry's size. */
export const OVERSIZED_META_KEY = "storectl.oversized-metadata";

const BLOCK = 512;
const PAX = 0x78; // 'x'
const PAX_GLOBAL = 0x67; // 'g'
const GNU_LONG_NAME = 0x4c; // 'L'
const GNU_LONG_LINK = 0x4b; // 'K'
/** Type flags whose body the decoder takes as empty, whatever the size field says. */
const BODYLESS = new Set([0x31, 0x32, 0x33, 0x34, 0x35, 0x36]); // link, symlink, devices, directory, fifo

/**
 * A `tar → tar` transform that passes an archive through unchanged except for metadata entries
 * larger than `MAX_META_BYTES`, each replaced by a PAX header `storectl.oversized-metadata=<size>`.
 * It follows entry sizes as the decoder does (PAX `size` records, bodyless types); at the end of
 * the archive or at a block that is not a valid header it passes the rest as it is, for the
 * decoder to end or fail on.
 *
 * @example
 * ```ts
 * import { guardTarMetadata } from "./tar_meta_guard.ts";
 * const tar = new Blob([]).stream(); // an uncompressed tar stream
 * const guarded = tar.pipeThrough(guardTarMetadata());
 * ```
 */
export function guardTarMetadata(): TransformStream<Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>> {
  const walker = new BlockWalker();
  return new TransformStream({
    transform: (chunk, controller) => walker.push(chunk, (bytes) => controller.enqueue(bytes)),
    flush: (controller) => walker.end((bytes) => controller.enqueue(bytes)),
  });
}

type Emit = (bytes: Uint8Array<ArrayBuffer>) => void;

/** The archive's position between calls: in a header, a body to pass or skip, or past the end. */
class BlockWalker {
  /** A header split between chunks, held until whole. */
  readonly #header = new Uint8Array(BLOCK);
  #headerLength = 0;
  /** Bytes of the current body (and its padding) to pass on, or to drop. */
  #pass = 0;
  #skip = 0;
  /** A PAX body being passed on, kept to read its `size` record. */
  #paxBody: { global: boolean; bytes: Uint8Array<ArrayBuffer>; length: number } | undefined;
  /** The decoder's `size` overrides: the next entry's (a PAX header), and every entry's (a global one). */
  #localSize: number | undefined;
  #localPax = false;
  #globalSize: number | undefined;
  #done = false;

  push(chunk: Uint8Array<ArrayBuffer>, emit: Emit): void {
    let at = 0;
    let start = 0; // the first byte of `chunk` not emitted yet
    if (this.#headerLength > 0) {
      at = Math.min(BLOCK - this.#headerLength, chunk.length);
      this.#header.set(chunk.subarray(0, at), this.#headerLength);
      this.#headerLength += at;
      if (this.#headerLength < BLOCK) return;
      this.#headerLength = 0;
      start = at;
      const header = this.#header.slice();
      emit(this.#onHeader(header) ?? header);
    }
    while (at < chunk.length && !this.#done) {
      if (this.#pass > 0) {
        const n = Math.min(this.#pass, chunk.length - at);
        this.#keepPax(chunk.subarray(at, at + n));
        this.#pass -= n;
        at += n;
      } else if (this.#skip > 0) {
        const n = Math.min(this.#skip, chunk.length - at);
        this.#skip -= n;
        at += n;
        start = at;
      } else if (chunk.length - at < BLOCK) {
        if (at > start) emit(chunk.subarray(start, at));
        this.#header.set(chunk.subarray(at));
        this.#headerLength = chunk.length - at;
        return;
      } else {
        const replacement = this.#onHeader(chunk.subarray(at, at + BLOCK));
        if (replacement) {
          if (at > start) emit(chunk.subarray(start, at));
          emit(replacement);
          start = at + BLOCK;
        }
        at += BLOCK;
      }
    }
    if (chunk.length > start) emit(chunk.subarray(start));
  }

  end(emit: Emit): void {
    if (this.#headerLength > 0) emit(this.#header.slice(0, this.#headerLength)); // cut short: the decoder says so
  }

  /** Decides what follows `header`; returns the blocks to write instead of it, if any. */
  #onHeader(header: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> | undefined {
    const size = header.every((byte) => byte === 0) || !validChecksum(header) ? undefined : readSize(header);
    if (size === undefined) {
      this.#done = true; // the end, or damage: the decoder reports either
      return undefined;
    }
    const type = header[156];
    const padded = size + (-size & (BLOCK - 1));
    if (type === PAX || type === PAX_GLOBAL || type === GNU_LONG_NAME || type === GNU_LONG_LINK) {
      if (this.#localPax) [this.#localSize, this.#localPax] = [undefined, false]; // as the decoder forgets them
      if (size > MAX_META_BYTES) {
        this.#skip = padded;
        this.#localPax = true; // the replacement is a PAX header without a size
        return oversizedMarker(size);
      }
      this.#pass = padded;
      if (type === PAX || type === PAX_GLOBAL) {
        this.#paxBody = { global: type === PAX_GLOBAL, bytes: new Uint8Array(size), length: 0 };
        if (size === 0) this.#readPax();
      }
      return undefined;
    }
    const bodySize = BODYLESS.has(type) ? 0 : this.#localSize ?? this.#globalSize ?? size;
    [this.#localSize, this.#localPax] = [undefined, false];
    this.#pass = bodySize + (-bodySize & (BLOCK - 1));
    return undefined;
  }

  /** Collects a PAX body as it passes; reads it once whole. */
  #keepPax(bytes: Uint8Array): void {
    const body = this.#paxBody;
    if (!body) return;
    const n = Math.min(bytes.length, body.bytes.length - body.length);
    body.bytes.set(bytes.subarray(0, n), body.length);
    body.length += n;
    if (body.length === body.bytes.length) this.#readPax();
  }

  #readPax(): void {
    const { global, bytes } = this.#paxBody!;
    this.#paxBody = undefined;
    const { size, any } = paxSize(bytes);
    if (global) {
      if (size !== undefined) this.#globalSize = size;
    } else {
      this.#localPax = any;
      if (size !== undefined) this.#localSize = size;
    }
  }
}

/** The `size` record of a PAX body, read as the decoder reads records, and whether it had any. */
function paxSize(bytes: Uint8Array): { size: number | undefined; any: boolean } {
  const decoder = new TextDecoder();
  let size: number | undefined;
  let any = false;
  for (let offset = 0; offset < bytes.length;) {
    const space = bytes.indexOf(0x20, offset);
    if (space === -1) break;
    const length = parseInt(decoder.decode(bytes.subarray(offset, space)), 10);
    if (!(length > 0)) break;
    const record = decoder.decode(bytes.subarray(space + 1, offset + length - 1));
    const equals = record.indexOf("=");
    if (equals > 0) {
      any = true;
      const value = record.slice(equals + 1);
      if (record.slice(0, equals) === "size" && /^\d+$/.test(value) && Number.isSafeInteger(+value)) size = +value;
    }
    offset += length;
  }
  return { size, any };
}

/** The size field (octal, or base-256 when its first byte has the high bit), or undefined when invalid. */
function readSize(header: Uint8Array): number | undefined {
  const field = header.subarray(124, 136);
  let value = 0;
  if (field[0] & 0x80) {
    value = field[0] & 0x7f;
    for (let i = 1; i < field.length; i++) value = value * 256 + field[i];
    return Number.isSafeInteger(value) ? value : undefined;
  }
  for (const byte of field) {
    if (byte === 0) break;
    if (byte === 0x20) continue;
    if (byte < 0x30 || byte > 0x37) return undefined;
    value = value * 8 + byte - 0x30;
  }
  return value;
}

function validChecksum(header: Uint8Array): boolean {
  let stored = 0;
  for (const byte of header.subarray(148, 156)) {
    if (byte === 0) break;
    if (byte === 0x20) continue;
    if (byte < 0x30 || byte > 0x37) return false;
    stored = stored * 8 + byte - 0x30;
  }
  let sum = 8 * 0x20; // the checksum field counts as spaces
  for (let i = 0; i < BLOCK; i++) if (i < 148 || i >= 156) sum += header[i];
  return sum === stored;
}

/** A PAX header and body saying that a metadata entry of `size` bytes was left out. */
function oversizedMarker(size: number): Uint8Array<ArrayBuffer> {
  const text = ` ${OVERSIZED_META_KEY}=${size}\n`;
  let length = text.length;
  while (`${length}${text}`.length !== length) length = `${length}${text}`.length;
  const body = new TextEncoder().encode(`${length}${text}`);
  const blocks = new Uint8Array(BLOCK + body.length + (-body.length & (BLOCK - 1)));
  const ascii = (offset: number, value: string) => blocks.set(new TextEncoder().encode(value), offset);
  ascii(0, "././@PaxHeader");
  ascii(100, "0000644\0");
  ascii(108, "0000000\0");
  ascii(116, "0000000\0");
  ascii(124, `${body.length.toString(8).padStart(11, "0")}\0`);
  ascii(136, "00000000000\0");
  blocks[156] = PAX;
  ascii(257, "ustar\x0000");
  let sum = 8 * 0x20;
  for (let i = 0; i < BLOCK; i++) if (i < 148 || i >= 156) sum += blocks[i];
  ascii(148, `${sum.toString(8).padStart(6, "0")}\0 `);
  blocks.set(body, BLOCK);
  return blocks;
}
