/**
 * Digests as hex: the one way the code base turns bytes into hex and text into a SHA digest.
 *
 * @example
 * ```ts
 * import { digestHex, hex } from "./hash.ts";
 * hex(new Uint8Array([1, 171])); // "01ab"
 * await digestHex("SHA-256", "abc"); // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
 * ```
 *
 * @module
 */
const encoder = new TextEncoder();

/** `bytes` as lowercase hex, two digits each. */
export function hex(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += byte.toString(16).padStart(2, "0");
  return out;
}

/** The `algorithm` digest of `data` (text as UTF-8) in hex, by Web Crypto. */
export async function digestHex(
  algorithm: "SHA-1" | "SHA-256",
  data: string | Uint8Array<ArrayBuffer>,
): Promise<string> {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  return hex(new Uint8Array(await crypto.subtle.digest(algorithm, bytes)));
}
