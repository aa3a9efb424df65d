/** A certificate and its private key, both PEM-encoded. */
export interface CertificatePair {
  readonly cert: string;
  readonly key: string;
}

/**
 * Generates a self-signed ECDSA P-256 certificate for `localhost` and `127.0.0.1`, valid for
 * one year, with WebCrypto only.
 *
 * It is a v3 end-entity certificate with a subjectAltName and no CA flag, because rustls
 * (Deno) rejects a CA certificate used as a server certificate and ignores the common name.
 *
 * @example
 * ```ts
 * import { generateSelfSignedCertificate } from "./self_signed_cert.ts";
 * import { loadRuntime } from "../lib/runtime/mod.ts";
 * const tls = await generateSelfSignedCertificate("storectl emulator");
 * await (await loadRuntime()).serve({ port: 9443, tls, fetch: () => new Response("ok") });
 * ```
 */
export async function generateSelfSignedCertificate(
  commonName: string,
  now: Date = new Date(),
): Promise<CertificatePair> {
  const algorithm = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const keys = await crypto.subtle.generateKey(algorithm, true, ["sign", "verify"]);
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", keys.publicKey));
  const name = seq(set(seq(oid(OID.commonName), tlv(0x0c, utf8(commonName)))));
  const ecdsaWithSha256 = seq(oid(OID.ecdsaWithSha256));
  const serial = crypto.getRandomValues(new Uint8Array(16));
  serial[0] &= 0x7f; // keep the INTEGER positive
  const tbs = seq(
    tlv(0xa0, integer(new Uint8Array([2]))), // version 3
    integer(serial),
    ecdsaWithSha256,
    name,
    seq(utcTime(new Date(now.getTime() - 60_000)), utcTime(new Date(now.getTime() + 365 * 86_400_000))),
    name,
    spki,
    tlv(
      0xa3,
      seq(
        extension(OID.subjectAltName, seq(tlv(0x82, utf8("localhost")), tlv(0x87, new Uint8Array([127, 0, 0, 1])))),
        extension(OID.keyUsage, tlv(0x03, new Uint8Array([0x07, 0x80]))), // digitalSignature
        extension(OID.extKeyUsage, seq(oid(OID.serverAuth))),
      ),
    ),
  );
  const rawSignature = new Uint8Array(await crypto.subtle.sign(algorithm, keys.privateKey, tbs));
  const signature = seq(integer(rawSignature.subarray(0, 32)), integer(rawSignature.subarray(32)));
  const certificate = seq(tbs, ecdsaWithSha256, tlv(0x03, concat(new Uint8Array([0]), signature)));
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", keys.privateKey));
  return { cert: pem("CERTIFICATE", certificate), key: pem("PRIVATE KEY", pkcs8) };
}

const OID = {
  commonName: "2.5.4.3",
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
  subjectAltName: "2.5.29.17",
  keyUsage: "2.5.29.15",
  extKeyUsage: "2.5.29.37",
  serverAuth: "1.3.6.1.5.5.7.3.1",
};

function tlv(tag: number, content: Uint8Array): Uint8Array<ArrayBuffer> {
  const n = content.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return concat(new Uint8Array([tag, ...length]), content);
}

const seq = (...items: Uint8Array[]) => tlv(0x30, concat(...items));
const set = (...items: Uint8Array[]) => tlv(0x31, concat(...items));
const utf8 = (text: string) => new TextEncoder().encode(text);
const extension = (id: string, value: Uint8Array) => seq(oid(id), tlv(0x04, value));

function integer(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0 && bytes[start + 1] < 0x80) start++;
  const trimmed = bytes.subarray(start);
  return tlv(0x02, trimmed[0] >= 0x80 ? concat(new Uint8Array([0]), trimmed) : trimmed);
}

function oid(dotted: string): Uint8Array {
  const [first, second, ...rest] = dotted.split(".").map(Number);
  const out = [40 * first + second];
  for (const arc of rest) {
    const base128 = [arc & 0x7f];
    for (let v = arc >>> 7; v > 0; v >>>= 7) base128.unshift((v & 0x7f) | 0x80);
    out.push(...base128);
  }
  return tlv(0x06, new Uint8Array(out));
}

function utcTime(date: Date): Uint8Array {
  const text = date.toISOString().replace(/[-:T]/g, "").slice(2, 14) + "Z"; // YYMMDDHHMMSSZ
  return tlv(0x17, utf8(text));
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function pem(label: string, der: Uint8Array): string {
  const base64 = btoa(String.fromCharCode(...der));
  return `-----BEGIN ${label}-----\n${base64.match(/.{1,64}/g)!.join("\n")}\n-----END ${label}-----\n`;
}
