import { assert, assertEquals, assertMatch } from "../../testing/assert.ts";
import { createTokenSet, parseTokens, sha256Hex } from "./tokens.ts";

const DIGEST = "a".repeat(64);
const refused = (text: string): string => {
  try {
    parseTokens(text, "tokens.json");
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`not refused: ${text}`);
};

Deno.test("parseTokens() reads name, tenant, scopes and the digest", () => {
  const entries = parseTokens(
    JSON.stringify([{
      name: "ci",
      tenant: "acme",
      scopes: ["tasks:read", "tasks:write"],
      sha256: DIGEST.toUpperCase(),
    }]),
    "tokens.json",
  );
  assertEquals(entries, [{ name: "ci", tenant: "acme", scopes: ["tasks:read", "tasks:write"], sha256: DIGEST }]);
});

Deno.test("parseTokens() names each bad entry with the reason", () => {
  assertMatch(refused("{"), /SERVICE_TOKENS_FILE 'tokens\.json' is not JSON/);
  assertMatch(refused("{}"), /must hold a JSON array/);
  assertMatch(refused("[]"), /lists no tokens: add one, or unset SERVICE_TOKENS_FILE/);
  const message = refused(JSON.stringify([
    { name: "ok", tenant: "acme", scopes: ["admin"], sha256: DIGEST },
    { name: "ci", tenant: "acme", scopes: ["tasks:delete"], sha256: DIGEST.replace(/a/g, "b") },
    { name: "ok", tenant: "ac me", scopes: [], sha256: "xyz" },
    { name: "leaky", tenant: "acme", scopes: ["admin"], token: "plain-secret" },
    { name: "dup", tenant: "acme", scopes: ["admin"], sha256: DIGEST, extra: 1 },
    "string",
  ]));
  assertMatch(message, /entry 2 \('ci'\): unknown scope 'tasks:delete'; use tasks:read, tasks:write/);
  assertMatch(message, /entry 3 \('ok'\): name 'ok' is used by an earlier entry/);
  assertMatch(message, /entry 3 \('ok'\): tenant must be 1 to 64 letters/);
  assertMatch(message, /entry 3 \('ok'\): scopes must be a non-empty list/);
  assertMatch(message, /entry 3 \('ok'\): sha256 must be 64 hex digits \(.*sha256sum/);
  assertMatch(message, /entry 4 \('leaky'\): holds a 'token': put only its sha256 in the file/);
  assert(!message.includes("plain-secret"), "the token is echoed");
  assertMatch(message, /entry 5 \('dup'\): unknown field extra/);
  assertMatch(message, /entry 5 \('dup'\): sha256 is the same as an earlier entry's/);
  assertMatch(message, /entry 6: must be an object/);
});

Deno.test("createTokenSet().lookup() finds a token by its digest, and nothing for any other", () => {
  const tokens = createTokenSet([
    { name: "ci", tenant: "acme", scopes: ["tasks:read"], sha256: sha256Hex("token-1") },
    { name: "ops", tenant: "beta", scopes: ["admin"], sha256: sha256Hex("token-2") },
  ]);
  assertEquals(tokens.size, 2);
  assertEquals(tokens.lookup("token-1"), { name: "ci", tenant: "acme", scopes: ["tasks:read"] });
  assertEquals((tokens.lookup("token-2"))?.name, "ops");
  for (const other of ["token-3", "", "token-1 ", sha256Hex("token-1")]) {
    assertEquals(tokens.lookup(other), undefined, other);
  }
});

Deno.test("createTokenSet().lookup() hashes any token as its UTF-8 bytes, whatever its length", () => {
  // Non-ASCII (copied through the encoder), one and several SHA-256 blocks, longer than the buffer it starts with.
  const texts = ["tökën-ü", "x".repeat(55), "x".repeat(56), "y".repeat(300), "€".repeat(120), "ascii-then-é"];
  const tokens = createTokenSet(
    texts.map((text, i) => ({ name: `t${i}`, tenant: "acme", scopes: [], sha256: sha256Hex(text) })),
  );
  texts.forEach((text, i) => assertEquals(tokens.lookup(text)?.name, `t${i}`, text));
  // A short token after a long one: the reused buffer holds the long one's bytes beyond the short one's end.
  assertEquals(tokens.lookup("x".repeat(55))?.name, "t1");
  assertEquals(tokens.lookup("tökën-ü")?.name, "t0");
  assertEquals(tokens.lookup("tökën-u"), undefined);
});

Deno.test("sha256Hex() is what sha256sum prints", () => {
  assertEquals(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
});
