import type { Context, MiddlewareHandler, Next } from "hono";

/** Methods `new Request()` refuses ("Method is forbidden"). */
const UNCOPYABLE = new Set(["CONNECT", "TRACE", "TRACK"]);

/**
 * Answers `tooLarge(c)` for request bodies over `maxBytes`: by their `Content-Length`, or, for
 * bodies of unknown length (chunked, or none declared), by reading at most `maxBytes + 1`
 * bytes, which the route then reads from memory.
 *
 * Hono's `bodyLimit` does the same, but rebuilds the request with `new Request(request, …)`,
 * which reads the request's signal; Deno's server then prints a warning about its legacy abort
 * behaviour. Here the copy takes the original's signal only when something asks for it, and a
 * GET or HEAD is passed on without reading `body` (on Node that read costs ~100 µs). TRACE,
 * TRACK and CONNECT pass unchecked: no copy can have them, and the app refuses them unread.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { bodyLimit } from "./body_limit.ts";
 * const app = new Hono();
 * app.use("*", bodyLimit(1024 * 1024, (c) => c.json({ status: 413 }, 413)));
 * ```
 */
export function bodyLimit(maxBytes: number, tooLarge: (c: Context) => Response): MiddlewareHandler {
  // Not async: a request passed straight on costs no promise of its own.
  return (c, next) => {
    const request = c.req.raw;
    // GET and HEAD carry no body here; not asking spares Node's adapter building a full Request.
    if (request.method === "GET" || request.method === "HEAD" || !request.body) return next();
    // No copy can have these methods; the app answers them 405 without reading the body.
    if (UNCOPYABLE.has(request.method.toUpperCase())) return next();
    const length = request.headers.get("content-length");
    if (length !== null && !request.headers.has("transfer-encoding")) {
      return Number(length) > maxBytes ? Promise.resolve(tooLarge(c)) : next();
    }
    return readUpTo(c, next, request, request.body);
  };

  /** A body of unknown length: read up to the limit, then handed on from memory. */
  async function readUpTo(c: Context, next: Next, request: Request, body: ReadableStream<Uint8Array>) {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.length;
      if (size > maxBytes) return tooLarge(c);
      chunks.push(chunk);
    }
    c.req.raw = withBody(request, await new Blob(chunks as BlobPart[]).arrayBuffer());
    return await next();
  }
}

/**
 * A copy of `request` with `body` (and `headers`, default the original's), whose `signal` is the
 * original's, read only when used (reading it makes Deno's server warn about legacy aborts).
 */
export function withBody(request: Request, body: BodyInit | null, headers: Headers = request.headers): Request {
  const copy = new Request(request.url, { method: request.method, headers, body });
  Object.defineProperty(copy, "signal", { get: () => request.signal });
  return copy;
}
