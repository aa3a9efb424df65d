/** The kind of a failed `fetch`, read from the error and its causes. */
export type FailureKind = "tls" | "protocol" | "refused" | "dns" | "reset" | "other";

/** Collects messages and codes along an error's cause chain. */
export function describeFailure(error: unknown): string {
  const parts: string[] = [];
  for (
    let e = error as { message?: string; code?: string; cause?: unknown } | undefined;
    e && parts.length < 6;
    e = e.cause as typeof e
  ) {
    if (e.message) parts.push(e.message);
    if (e.code) parts.push(e.code);
  }
  return parts.join(": ");
}

/**
 * Classifies a failed `fetch` on Deno (rustls/hyper messages) or Node and undici (error codes).
 */
export function classifyFailure(error: unknown): FailureKind {
  const text = describeFailure(error);
  // The other side speaks another protocol: plain HTTP on a TLS port, or TLS on a plain one.
  if (
    /wrong version number|InvalidContentType|CorruptMessage|packet length too long|HTTP\/1\.1 protocol|invalid HTTP version|HPE_INVALID|Parse Error|EPROTO/i
      .test(text)
  ) {
    return "protocol";
  }
  if (
    /certificate|UnknownIssuer|NotValidForName|SELF_SIGNED|UNABLE_TO_VERIFY|CERT_|InvalidCertificate|ERR_TLS/i.test(
      text,
    )
  ) {
    return "tls";
  }
  if (/ECONNREFUSED|Connection refused/i.test(text)) return "refused";
  if (/ENOTFOUND|EAI_AGAIN|failed to lookup|dns error|Name or service not known/i.test(text)) return "dns";
  if (
    /ECONNRESET|EPIPE|connection reset|closed before|socket hang up|UND_ERR_SOCKET|connection closed|stream error|terminated/i
      .test(text)
  ) {
    return "reset";
  }
  return "other";
}

const IN_WORDS: Record<Exclude<FailureKind, "other">, string> = {
  tls: "TLS certificate verification failed",
  protocol: "the server spoke another protocol (HTTP and HTTPS mixed up?)",
  refused: "connection refused",
  dns: "host not found",
  reset: "connection closed unexpectedly",
};

/**
 * A failed `fetch` in a few words, the same on every runtime: `connection refused`, `host not
 * found`, …; for a failure of no known kind, the innermost message of the chain.
 *
 * @example
 * ```ts
 * import { failureInWords } from "./classify.ts";
 * failureInWords(new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } })); // "connection refused"
 * ```
 */
export function failureInWords(error: unknown): string {
  const kind = classifyFailure(error);
  if (kind !== "other") return IN_WORDS[kind];
  let innermost = error as { message?: string; cause?: unknown } | undefined;
  while (innermost?.cause && typeof innermost.cause === "object" && (innermost.cause as Error).message) {
    innermost = innermost.cause as typeof innermost;
  }
  return innermost?.message || String(error);
}

/** Why a certificate was refused, by the names rustls (Deno) and OpenSSL (Node, undici) give it. */
const TLS_CAUSES: readonly [RegExp, string][] = [
  [
    // A self-signed certificate that says it is a CA: rustls calls it CaUsedAsEndEntity.
    /UnknownIssuer|CaUsedAsEndEntity|SELF_SIGNED|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT/i,
    "the server's certificate is signed by no authority this machine trusts (self-signed, or a private CA)",
  ],
  [/NotValidForName|ALTNAME_INVALID/i, "the server's certificate is not made out for this host name"],
  [/\bExpired\b|CERT_HAS_EXPIRED/i, "the server's certificate has expired"],
  [/NotValidYet|CERT_NOT_YET_VALID/i, "the server's certificate is not valid yet (is this machine's clock right?)"],
  [/\bRevoked\b|CERT_REVOKED/i, "the server's certificate has been revoked"],
];

/**
 * Why TLS verification failed, in words, the same on every runtime, without the runtime's chain
 * (`fetch failed: error sending request for url (…): client error (Connect): …`): a known cause
 * in a sentence, else only the verifier's own last word.
 *
 * @example
 * ```ts
 * import { tlsCause } from "./classify.ts";
 * tlsCause(new TypeError("fetch failed", { cause: { code: "CERT_HAS_EXPIRED" } })); // "the server's certificate has expired"
 * ```
 */
export function tlsCause(error: unknown): string {
  const text = describeFailure(error);
  const known = TLS_CAUSES.find(([pattern]) => pattern.test(text));
  if (known) return known[1];
  // The last word of the chain, out of rustls' wrappers: `Other(OtherError(X))` is X.
  const last = text.split(/: (?:invalid peer certificate: )?/).at(-1)!.trim();
  return last.replace(/^(?:\w+\()+(\w+)\)+$/, "$1") || text;
}
