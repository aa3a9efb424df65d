import { fetchTransport, proxyConfigured, type Transport, type TransportOptions } from "../../http/transport.ts";

/** Node's fetch for plain requests; undici for custom TLS settings and proxies. */
export async function nodeTransport(options: TransportOptions): Promise<Transport> {
  const proxied = proxyConfigured(options.env);
  if (!proxied && !options.insecure && options.caCert === undefined) {
    return fetchTransport((input, init) => fetch(input, init));
  }
  const { undiciTransport } = await import("../undici.ts");
  return undiciTransport(options, proxied);
}
