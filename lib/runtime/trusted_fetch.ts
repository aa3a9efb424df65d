/**
 * On Deno, a native `fetch` that also trusts `caCert`, or undefined elsewhere.
 *
 * Preferred over undici on Deno: it loads nothing extra, and it notices a TLS connection that
 * the server cuts mid-body, which undici on Deno's `node:tls` does not.
 */
export function nativeFetchTrusting(
  caCert: string,
): ((input: string, init: RequestInit) => Promise<Response>) | undefined {
  if (!("Deno" in globalThis)) return undefined;
  const client = Deno.createHttpClient({ caCerts: [caCert] });
  return (input, init) => fetch(input, { ...init, client });
}
