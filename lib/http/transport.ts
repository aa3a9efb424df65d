import { nativeFetchTrusting } from "../runtime/mod.ts";
import { describeFailure } from "./classify.ts";

/** A `fetch` function: the global one, or undici's bound to a dispatcher. */
export type Fetch = (input: string, init: RequestInit) => Promise<Response>;

/** TLS and proxy settings of a transport. */
export interface TransportOptions {
  /** Accept any server certificate (self-signed clusters). */
  readonly insecure?: boolean;
  /** PEM certificate(s) to trust in addition to the system store. */
  readonly caCert?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

const PROXY_VARS = ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"];

/**
 * Picks the cheapest transport that honours the options. The global `fetch` serves plain
 * requests (Deno's also honours `HTTP(S)_PROXY`/`NO_PROXY`), and on Deno a native client
 * trusts a CA. undici, whose import costs about 90 ms, is loaded only for `insecure` (Deno's
 * fetch has no "accept any certificate" switch), for a CA on Node, or for a proxy on Node,
 * whose fetch ignores the proxy variables.
 */
export async function createFetch(options: TransportOptions): Promise<Fetch> {
  const proxied = PROXY_VARS.some((name) => options.env[name]);
  const customTls = options.insecure || options.caCert !== undefined;
  if (!customTls && (!proxied || "Deno" in globalThis)) return (input, init) => fetch(input, init);
  const native = !options.insecure && options.caCert !== undefined ? nativeFetchTrusting(options.caCert) : undefined;
  if (!native) return await undiciFetch(options, proxied);
  // rustls refuses a certificate marked as a CA as the server's own (CaUsedAsEndEntity), yet
  // `openssl req -x509` makes exactly that, and OpenSSL accepts it: undici serves that case.
  let fallback: Fetch | undefined;
  return async (input, init) => {
    if (fallback) return fallback(input, init);
    try {
      return await native(input, init);
    } catch (error) {
      if (!/CaUsedAsEndEntity/.test(describeFailure(error))) throw error;
      fallback = await undiciFetch(options, proxied);
      return fallback(input, init);
    }
  };
}

async function undiciFetch(options: TransportOptions, proxied: boolean): Promise<Fetch> {
  // A code-split Node bundle exposes this CommonJS package only as `default`.
  const loaded = await import("undici");
  const undici = "Agent" in loaded ? loaded : (loaded as unknown as { default: typeof loaded }).default;
  const tls = {
    ...(options.insecure && { rejectUnauthorized: false }),
    ...(options.caCert !== undefined && { ca: options.caCert }),
  };
  const dispatcher = proxied
    ? new undici.EnvHttpProxyAgent({ connect: tls, requestTls: tls, proxyTunnel: false })
    : new undici.Agent({ connect: tls });
  return (input, init) =>
    undici.fetch(input, { ...init, dispatcher } as Parameters<typeof undici.fetch>[1]) as unknown as Promise<Response>;
}
