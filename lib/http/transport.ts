/**
 * A response as the client needs it. A WHATWG `Response` is one; on Node the transport builds a
 * small one of its own, because touching `Response` there loads Node's bundled undici (~100 ms).
 */
export interface HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: { get(name: string): string | null };
  readonly body: ReadableStream<Uint8Array> | null;
}

/** One request on the wire. */
export interface TransportRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A stream is sent as it is read, and is never retried. */
  readonly body?: string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>;
  readonly signal?: AbortSignal;
}

/** Sends one request; rejects on a connection or TLS failure, resolves on any HTTP status. */
export type Transport = (request: TransportRequest) => Promise<HttpResponse>;

/** TLS and proxy settings of a transport. */
export interface TransportOptions {
  /** Accept any server certificate (self-signed clusters). */
  readonly insecure?: boolean;
  /** PEM certificate(s) to trust in addition to the system store. */
  readonly caCert?: string;
  /** Read for `HTTP(S)_PROXY` and `NO_PROXY`. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** Whether the environment names a proxy. */
export function proxyConfigured(env: Readonly<Record<string, string | undefined>>): boolean {
  return ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"].some((name) => env[name]);
}

/**
 * A transport over a WHATWG `fetch`: the global one, a bound one, or an app's fetch handler.
 *
 * @example
 * ```ts
 * import { fetchTransport } from "./transport.ts";
 * const app = { fetch: (_request: Request) => Response.json({ ok: true }) };
 * const transport = fetchTransport((input, init) => Promise.resolve(app.fetch(new Request(input, init))));
 * const response = await transport({ url: "http://emulator/v1/bdbs", method: "GET", headers: {} });
 * ```
 */
export function fetchTransport(fetchFn: (input: string, init: RequestInit) => Promise<Response>): Transport {
  return (request) =>
    fetchFn(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: request.signal,
      ...(request.body instanceof ReadableStream && { duplex: "half" }),
    } as RequestInit);
}

/** The whole body as text (UTF-8). */
export async function readText(response: HttpResponse): Promise<string> {
  if (!response.body) return "";
  let text = "";
  const decoder = new TextDecoder();
  // A reader, not `for await`: the iterator releases its lock at the end, and on Node a release
  // builds an error in a new V8 context (~1 ms of every command).
  const reader = response.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    text += decoder.decode(read.value, { stream: true });
  }
  return text + decoder.decode();
}

/** Discards the body, releasing the connection. */
export async function discardBody(response: HttpResponse): Promise<void> {
  await response.body?.cancel().catch(() => {});
}
