/**
 * Signing outgoing webhooks as the Standard Webhooks specification asks
 * (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md), with Web Crypto only,
 * so the same code signs on Deno, Node and edge runtimes.
 *
 * @module
 */

const PREFIX = "whsec_";

/** A new signing secret: `whsec_` and the base64 of 24 random bytes, the form Standard Webhooks libraries read. */
export function newSecret(): string {
  return PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(24)));
}

/**
 * The `webhook-signature` value of one message: `v1,` and the base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`,
 * keyed with the bytes of the secret (the base64 after `whsec_`). `timestampSeconds` is whole Unix seconds.
 */
export async function signature(secret: string, id: string, timestampSeconds: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    fromBase64(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const signed = new TextEncoder().encode(`${id}.${timestampSeconds}.${body}`);
  return `v1,${toBase64(new Uint8Array(await crypto.subtle.sign("HMAC", key, signed)))}`;
}

/** The headers of one delivery: `webhook-id`, `webhook-timestamp`, `webhook-signature` and the JSON content type. */
export async function webhookHeaders(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): Promise<Record<string, string>> {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": await signature(secret, id, timestampSeconds, body),
    "content-type": "application/json",
  };
}

function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}
