/**
 * SHA-256 (FIPS 180-4) in plain TypeScript, synchronous. Every request with a token hashes it:
 * Web Crypto's `digest` is asynchronous and cost 35–60 µs a call here (more than the rest of a
 * `GET /tasks/{id}`), this costs about 1 µs for a token-sized input. `sha256_test.ts` checks it
 * against Web Crypto.
 *
 * @example
 * ```ts
 * import { sha256 } from "./sha256.ts";
 * sha256(new TextEncoder().encode("abc")).length; // 32
 * ```
 *
 * @module
 */

const K = new Int32Array([
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2,
]);
const W = new Int32Array(64);
const STATE = new Int32Array(8);

/** The SHA-256 digest of `data`: 32 bytes. */
export function sha256(data: Uint8Array): Uint8Array {
  const words = sha256Words(data, data.length);
  const out = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    out[i * 4] = words[i] >>> 24;
    out[i * 4 + 1] = words[i] >>> 16;
    out[i * 4 + 2] = words[i] >>> 8;
    out[i * 4 + 3] = words[i];
  }
  return out;
}

/**
 * The digest of the first `length` bytes of `data` as eight 32-bit words, in a buffer the next
 * call overwrites (no allocation for inputs under 56 bytes: a token is hashed on every request).
 */
export function sha256Words(data: Uint8Array, length: number): Int32Array {
  // The message, a 0x80 byte, zeros, and its length in bits (64-bit big-endian): whole 64-byte blocks.
  const blocks = Math.ceil((length + 9) / 64);
  const padded = blocks === 1 ? ONE_BLOCK : new Uint8Array(blocks * 64);
  for (let i = 0; i < length; i++) padded[i] = data[i];
  padded[length] = 0x80;
  padded.fill(0, length + 1);
  const bits = length * 8;
  const end = padded.length;
  const high = Math.floor(bits / 0x1_0000_0000);
  padded[end - 8] = high >>> 24, padded[end - 7] = high >>> 16, padded[end - 6] = high >>> 8, padded[end - 5] = high;
  padded[end - 4] = bits >>> 24, padded[end - 3] = bits >>> 16, padded[end - 2] = bits >>> 8, padded[end - 1] = bits;
  let h0 = 0x6a09e667, h1 = 0xbb67ae85 | 0, h2 = 0x3c6ef372, h3 = 0xa54ff53a | 0;
  let h4 = 0x510e527f, h5 = 0x9b05688c | 0, h6 = 0x1f83d9ab, h7 = 0x5be0cd19;
  for (let offset = 0; offset < end; offset += 64) {
    for (let t = 0; t < 16; t++) {
      const i = offset + t * 4;
      W[t] = (padded[i] << 24) | (padded[i + 1] << 16) | (padded[i + 2] << 8) | padded[i + 3];
    }
    for (let t = 16; t < 64; t++) {
      const a = W[t - 15], b = W[t - 2];
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      W[t] = (W[t - 16] + s0 + W[t - 7] + s1) | 0;
    }
    let a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7;
    for (let t = 0; t < 64; t++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (h + S1 + ch + K[t] + W[t]) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0, h1 = (h1 + b) | 0, h2 = (h2 + c) | 0, h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0, h5 = (h5 + f) | 0, h6 = (h6 + g) | 0, h7 = (h7 + h) | 0;
  }
  STATE[0] = h0, STATE[1] = h1, STATE[2] = h2, STATE[3] = h3, STATE[4] = h4, STATE[5] = h5, STATE[6] = h6;
  STATE[7] = h7;
  return STATE;
}

const ONE_BLOCK = new Uint8Array(64);
