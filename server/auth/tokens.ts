/**
 * Bearer tokens: the `SERVICE_TOKENS_FILE` (each token as its SHA-256 digest, so the file holds
 * no secret, with a name, a tenant and scopes), validated at start, and the lookup of a presented
 * token, which hashes it and compares the digest with every configured one in constant time.
 * Tokens are never logged and never echoed in errors.
 *
 * @example
 * ```ts
 * import { createTokenSet, parseTokens, sha256Hex } from "./tokens.ts";
 * const digest = sha256Hex("s3cret-token");
 * const tokens = createTokenSet(
 *   parseTokens(JSON.stringify([{ name: "ci", tenant: "acme", scopes: ["tasks:read"], sha256: digest }]), "tokens.json"),
 * );
 * tokens.lookup("s3cret-token"); // { name: "ci", tenant: "acme", scopes: ["tasks:read"] }
 * tokens.lookup("guess"); // undefined
 * ```
 *
 * @module
 */
import { type Scope, SCOPES } from "./scopes.ts";
import { sha256, sha256Words } from "./sha256.ts";
import { hex } from "../../lib/text/mod.ts";

/** Who made a request: the token's name, its tenant and its scopes. */
export interface Principal {
  readonly name: string;
  readonly tenant: string;
  readonly scopes: readonly Scope[];
}

/** One entry of `SERVICE_TOKENS_FILE`. */
export interface TokenEntry extends Principal {
  /** The SHA-256 of the token, 64 lowercase hex digits. */
  readonly sha256: string;
}

/** A tenant name: it becomes part of store keys, so letters, digits, `.`, `_` and `-` only. */
const TENANT = /^[A-Za-z0-9._-]{1,64}$/;
const HEX64 = /^[0-9a-fA-F]{64}$/;
const encoder = new TextEncoder();
const HOW = 'the sha256 of a token is e.g. `printf %s "$TOKEN" | sha256sum`';

/**
 * Reads the tokens file's text; throws an error naming every bad entry (by position and name)
 * and why, and what to do about it. `source` is where the text came from, as the errors name it:
 * the file of `SERVICE_TOKENS_FILE`, or an edge runtime's binding.
 */
export function parseTokens(text: string, source: string | { readonly binding: string }): TokenEntry[] {
  const file = typeof source === "string";
  const from = file ? `SERVICE_TOKENS_FILE '${source}'` : `The ${source.binding} binding`;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(`${from} is not JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(data)) {
    throw new Error(
      `${from} must hold a JSON array of {name, tenant, scopes, sha256} entries`,
    );
  }
  if (data.length === 0) {
    throw new Error(
      `${from} lists no tokens: add one, or ${
        file ? "unset SERVICE_TOKENS_FILE" : "remove it"
      } to run open (local use only)`,
    );
  }
  const problems: string[] = [];
  const entries: TokenEntry[] = [];
  const names = new Set<string>();
  const digests = new Set<string>();
  data.forEach((raw: unknown, i: number): void => {
    const entry = (raw ?? {}) as Record<string, unknown>;
    const label = `entry ${i + 1}${typeof entry.name === "string" && entry.name ? ` ('${entry.name}')` : ""}`;
    const bad = (reason: string) => problems.push(`  - ${label}: ${reason}`);
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return void bad("must be an object");
    const known = ["name", "tenant", "scopes", "sha256"];
    const unknown = Object.keys(entry).filter((k) => !known.includes(k));
    if (unknown.includes("token")) return void bad(`holds a 'token': put only its sha256 in the file (${HOW})`);
    if (unknown.length > 0) bad(`unknown field${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}`);
    const { name, tenant, scopes, sha256 } = entry;
    if (typeof name !== "string" || name.trim() === "") bad("name must be a non-empty string");
    else if (names.has(name)) bad(`name '${name}' is used by an earlier entry; names must be unique`);
    if (typeof tenant !== "string" || !TENANT.test(tenant)) {
      bad("tenant must be 1 to 64 letters, digits, '.', '_' or '-'");
    }
    if (!Array.isArray(scopes) || scopes.length === 0) bad(`scopes must be a non-empty list of ${SCOPES.join(", ")}`);
    else {
      const wrong = scopes.filter((s) => !(SCOPES as readonly unknown[]).includes(s));
      if (wrong.length > 0) bad(`unknown scope ${wrong.map((s) => `'${s}'`).join(", ")}; use ${SCOPES.join(", ")}`);
    }
    if (typeof sha256 !== "string" || !HEX64.test(sha256)) bad(`sha256 must be 64 hex digits (${HOW})`);
    else if (digests.has(sha256.toLowerCase())) bad("sha256 is the same as an earlier entry's: one token, one entry");
    if (typeof name === "string") names.add(name);
    if (typeof sha256 === "string") digests.add(sha256.toLowerCase());
    entries.push({
      name: name as string,
      tenant: tenant as string,
      scopes: [...new Set(scopes as Scope[])],
      sha256: String(sha256).toLowerCase(),
    });
  });
  if (problems.length > 0) throw new Error(`${from} has bad entries:\n${problems.join("\n")}`);
  return entries;
}

/** The configured tokens. */
export interface TokenSet {
  /** How many tokens there are. */
  readonly size: number;
  /** The tenants the tokens name, each once. */
  readonly tenants: readonly string[];
  /** The principal of `token`, or `undefined` when no entry has its digest. */
  lookup(token: string): Principal | undefined;
}

/** Looks tokens up by digest, comparing with every entry in constant time (no early exit). */
export function createTokenSet(entries: readonly TokenEntry[]): TokenSet {
  const table = entries.map((e) => ({
    words: toWords(fromHex(e.sha256)),
    principal: Object.freeze({ name: e.name, tenant: e.tenant, scopes: Object.freeze([...e.scopes]) }),
  }));
  let scratch = new Uint8Array(256);
  return {
    size: table.length,
    tenants: [...new Set(entries.map((e) => e.tenant))],
    lookup(token) {
      // UTF-8 into a reused buffer: no allocation per request for a token of usual size. Tokens
      // are ASCII in practice, copied as they are; anything else goes through the encoder.
      if (token.length * 3 > scratch.length) scratch = new Uint8Array(token.length * 3);
      let length = 0;
      while (length < token.length && token.charCodeAt(length) < 0x80) scratch[length] = token.charCodeAt(length++);
      if (length < token.length) length = encoder.encodeInto(token, scratch).written;
      const digest = sha256Words(scratch, length);
      let found: Principal | undefined;
      for (const entry of table) {
        let diff = 0;
        for (let i = 0; i < 8; i++) diff |= digest[i] ^ entry.words[i];
        if (diff === 0) found = entry.principal;
      }
      return found;
    },
  };
}

function toWords(bytes: Uint8Array): Int32Array {
  const words = new Int32Array(8);
  for (let i = 0; i < 8; i++) {
    words[i] = (bytes[i * 4] << 24) | (bytes[i * 4 + 1] << 16) | (bytes[i * 4 + 2] << 8) | bytes[i * 4 + 3];
  }
  return words;
}

/** The SHA-256 of `text` as 64 lowercase hex digits (what `sha256sum` prints). */
export function sha256Hex(text: string): string {
  return hex(sha256(encoder.encode(text)));
}

function fromHex(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}
