/** What people check on a certificate: whom it names, and until when it is valid. */
export interface CertificateSummary {
  /** The subject's common name (CN), if it has one. */
  readonly subject?: string;
  /** The end of validity, ISO 8601. */
  readonly notAfter?: string;
}

interface Tlv {
  readonly tag: number;
  readonly start: number;
  readonly end: number;
}

/** One DER element at `at`: its tag and where its value starts and ends. */
function tlv(der: Uint8Array, at: number): Tlv {
  const tag = der[at];
  let length = der[at + 1];
  let start = at + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + der[start + i];
    start += bytes;
  }
  if (tag === undefined || start + length > der.length) throw new RangeError("truncated DER");
  return { tag, start, end: start + length };
}

function children(der: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = parent.start; at < parent.end; at = out[out.length - 1].end) out.push(tlv(der, at));
  return out;
}

const CN = [0x55, 0x04, 0x03]; // OID 2.5.4.3

function time(der: Uint8Array, t: Tlv): string {
  const text = new TextDecoder().decode(der.subarray(t.start, t.end));
  const full = t.tag === 0x17 ? `${Number(text.slice(0, 2)) < 50 ? "20" : "19"}${text}` : text; // UTCTime: 2 digits
  const [, y, mo, d, h, mi, s] = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)/.exec(full) ?? [];
  return y ? `${y}-${mo}-${d}T${h}:${mi}:${s}Z` : text;
}

/**
 * The subject and expiry of a PEM certificate, read from its DER (no crypto needed), or
 * undefined when `pem` holds no certificate this can read.
 *
 * @example
 * ```ts
 * import { describeCertificate } from "./certificates.ts";
 * describeCertificate("not a certificate"); // undefined
 * ```
 */
export function describeCertificate(pem: string): CertificateSummary | undefined {
  const body = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(pem)?.[1];
  if (!body) return undefined;
  try {
    const der = Uint8Array.from(atob(body.replace(/\s+/g, "")), (c) => c.charCodeAt(0));
    const [tbs] = children(der, tlv(der, 0));
    const fields = children(der, tbs).filter((f) => f.tag !== 0xa0); // without the optional version
    const [, , , validity, subject] = fields;
    const [, notAfter] = children(der, validity);
    let cn: string | undefined;
    for (const set of children(der, subject)) {
      for (const pair of children(der, set)) {
        const [oid, value] = children(der, pair);
        const id = der.subarray(oid.start, oid.end);
        if (id.length === 3 && CN.every((b, i) => id[i] === b)) {
          cn = new TextDecoder().decode(der.subarray(value.start, value.end));
        }
      }
    }
    return { subject: cn, notAfter: time(der, notAfter) };
  } catch {
    return undefined;
  }
}
