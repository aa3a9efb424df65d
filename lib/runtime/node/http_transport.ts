import { readFileSync } from "node:fs";
import http from "node:http";
import type https from "node:https";
import type { HttpResponse, Transport, TransportOptions } from "../../http/transport.ts";
import { incomingBody } from "./incoming_body.ts";
import { fixedBody, sendBody } from "./request_body.ts";
import { responseHeaders } from "./response_headers.ts";

/** Statuses whose response has no body, as `fetch` reports them (`body: null`). */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/**
 * A transport on `node:http` and `node:https`. Node's `fetch` would load and compile its bundled
 * undici on first use (~100 ms, most of `ctl`'s start-up on Node); this needs none of it.
 *
 * Connections are pooled (keep-alive), so retries, task polling and a download followed by more
 * requests reuse one connection and one TLS handshake. Node unrefs idle pooled sockets, so they
 * never keep the process alive after the last response.
 *
 * TLS: `caCert` is trusted in addition to the system roots (and `NODE_EXTRA_CA_CERTS`, which
 * Node drops once a `ca` is given); `insecure` accepts any certificate.
 */
export function nodeHttpTransport(options: TransportOptions): Transport {
  const keepAlive = { keepAlive: true, timeout: 4_000 };
  const plain = { module: http, agent: new http.Agent(keepAlive) };
  // node:https and node:tls (with crypto) take a few milliseconds to load: only for https URLs.
  let secure: Promise<{ module: typeof https; agent: https.Agent }> | undefined;
  const connector = (protocol: string) => {
    if (protocol === "http:") return plain;
    if (protocol !== "https:") throw new TypeError(`Unsupported URL scheme ${protocol} (use http: or https:)`);
    return secure ??= Promise.all([import("node:https"), import("node:tls")]).then(([{ default: https }, tls]) => ({
      module: https,
      agent: new https.Agent({ ...keepAlive, ...tlsOptions(options, tls.default) }),
    }));
  };

  return async (request) => {
    const url = new URL(request.url);
    const { module, agent } = await connector(url.protocol);
    return new Promise<HttpResponse>((resolve, reject) => {
      const { signal } = request;
      if (signal?.aborted) return reject(signal.reason);
      const fixed = fixedBody(request.body);
      const headers: Record<string, string> = { ...request.headers };
      if (fixed && !Object.keys(headers).some((name) => name.toLowerCase() === "content-length")) {
        headers["content-length"] = String(fixed.byteLength);
      }
      const req = module.request(url, { method: request.method, headers, agent });
      let message: http.IncomingMessage | undefined;
      const abort = () => (message ?? req).destroy(signal!.reason);
      const settle = () => signal?.removeEventListener("abort", abort);
      signal?.addEventListener("abort", abort, { once: true });

      req.on("error", (error) => {
        // After the headers, a socket error belongs to the body: the stream reports it.
        if (message) {
          if (!message.complete) message.destroy(error);
          return;
        }
        settle();
        reject(error);
      });
      req.on("response", (response) => {
        message = response;
        response.once("close", settle);
        const empty = request.method.toUpperCase() === "HEAD" || NULL_BODY_STATUSES.has(response.statusCode ?? 0);
        // Read to the end all the same, to free the connection for the pool.
        if (empty) response.on("error", () => {}).resume();
        resolve({
          status: response.statusCode ?? 0,
          statusText: response.statusMessage ?? "",
          headers: responseHeaders(response.rawHeaders),
          body: empty ? null : incomingBody(response),
        });
      });
      sendBody(req, request.body).catch((error) => req.destroy(error));
    });
  };
}

/** What `https.Agent` needs to honour `insecure` and `caCert`. */
function tlsOptions(options: TransportOptions, tls: typeof import("node:tls")): https.AgentOptions {
  if (options.insecure) return { rejectUnauthorized: false };
  if (options.caCert === undefined) return {};
  const extra = options.env.NODE_EXTRA_CA_CERTS;
  const ca = [...tls.rootCertificates, options.caCert, ...(extra ? [readExtraCerts(extra)] : [])];
  // One context for every connection, so the ~150 roots are parsed once, not per handshake.
  return { secureContext: tls.createSecureContext({ ca }) };
}

function readExtraCerts(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return ""; // Node itself only warns about an unreadable NODE_EXTRA_CA_CERTS.
  }
}
