import { fetchTransport, type Transport, type TransportOptions } from "../http/transport.ts";

/**
 * A transport on undici, for what the runtime's own client cannot do: accept any certificate on
 * Deno, and proxies on Node. It costs about 90 ms to load, so it is imported only then.
 */
export async function undiciTransport(options: TransportOptions, proxied: boolean): Promise<Transport> {
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
  return fetchTransport((input, init) =>
    undici.fetch(input, { ...init, dispatcher } as Parameters<typeof undici.fetch>[1]) as unknown as Promise<Response>
  );
}
