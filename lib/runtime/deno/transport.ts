import { fetchTransport, proxyConfigured, type Transport, type TransportOptions } from "../../http/transport.ts";
import { describeFailure } from "../../http/classify.ts";

/**
 * Deno's own fetch for plain requests (it honours `HTTP(S)_PROXY` and `NO_PROXY`), and a native
 * client that trusts a CA. undici, loaded on demand, serves `insecure` (Deno's fetch has no
 * "accept any certificate" switch) and the CA certificates rustls refuses.
 */
export async function denoTransport(options: TransportOptions): Promise<Transport> {
  if (options.insecure) return await undici(options);
  if (options.caCert === undefined) return fetchTransport((input, init) => fetch(input, init));
  const client = Deno.createHttpClient({ caCerts: [options.caCert] });
  const native = fetchTransport((input, init) => fetch(input, { ...init, client }));
  // rustls refuses a certificate marked as a CA as the server's own (CaUsedAsEndEntity), yet
  // `openssl req -x509` makes exactly that, and OpenSSL accepts it: undici serves that case.
  let fallback: Transport | undefined;
  return async (request) => {
    if (fallback) return fallback(request);
    try {
      return await native(request);
    } catch (error) {
      if (!/CaUsedAsEndEntity/.test(describeFailure(error))) throw error;
      fallback = await undici(options);
      return fallback(request);
    }
  };
}

async function undici(options: TransportOptions): Promise<Transport> {
  const { undiciTransport } = await import("../undici.ts");
  return undiciTransport(options, proxyConfigured(options.env));
}
