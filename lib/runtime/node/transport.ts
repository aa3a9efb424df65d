import { proxyConfigured, type Transport, type TransportOptions } from "../../http/transport.ts";
import { nodeHttpTransport } from "./http_transport.ts";

/**
 * `node:http`/`node:https` for direct requests, plain or TLS (see `nodeHttpTransport`): they
 * never touch Node's `fetch`, whose bundled undici costs ~100 ms to load. Behind a proxy
 * (`HTTP(S)_PROXY`, any case; `NO_PROXY` honoured), undici's `EnvHttpProxyAgent`, loaded only then.
 */
export async function nodeTransport(options: TransportOptions): Promise<Transport> {
  if (!proxyConfigured(options.env)) return nodeHttpTransport(options);
  const { undiciTransport } = await import("../undici.ts");
  return undiciTransport(options, true);
}
