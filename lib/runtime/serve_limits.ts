/**
 * What keeps a listener alive under abuse, shared by both serve adapters: the connection
 * ceiling, client timeouts and the shutdown deadline, their defaults, and the request-body
 * guard that turns a body that never ends into a `RequestBodyTimeout` and a client that leaves
 * mid-body into a `ClientDisconnected`.
 *
 * @module
 */

/** Limits of one listener; every field has a default (`DEFAULT_SERVE_LIMITS`). */
export interface ServeLimits {
  /** Open connections at most; more are closed as soon as they are accepted. */
  readonly maxConnections: number;
  /** From a connection's start until its first request head has arrived. */
  readonly headersTimeoutMs: number;
  /** How long a connection may sit idle between requests. */
  readonly keepAliveTimeoutMs: number;
  /** From a request head until its whole body has arrived. */
  readonly bodyTimeoutMs: number;
  /** On `close()`: how long requests in flight may take before their connections are closed. */
  readonly shutdownTimeoutMs: number;
}

/** 10,000 connections; 10 s for headers, 5 s idle, 30 s for a body; 10 s to shut down. */
export const DEFAULT_SERVE_LIMITS: ServeLimits = {
  maxConnections: 10_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  bodyTimeoutMs: 30_000,
  shutdownTimeoutMs: 10_000,
};

/** Descriptors kept free for everything but client connections (store, files, the runtime's own). */
export const RESERVED_DESCRIPTORS = 64;

/** Where a listener reports what it does about abuse; debug lines are for `STORE_LOG=debug`. */
export type ServeLog = (level: "debug" | "info" | "warn", line: string) => void;

/**
 * The soft limit on open files from the text of `/proc/self/limits`, or undefined when it
 * cannot be read or is unlimited.
 *
 * @example
 * ```ts
 * softDescriptorLimit("Max open files            1024                 4096                 files"); // 1024
 * ```
 */
export function softDescriptorLimit(procLimits: string): number | undefined {
  const match = procLimits.match(/^Max open files\s+(\d+|unlimited)/m);
  return match && match[1] !== "unlimited" ? Number(match[1]) : undefined;
}

/**
 * The connection ceiling a process can keep: `requested`, lowered to what the descriptor limit
 * leaves after `RESERVED_DESCRIPTORS`, with a warning naming both numbers and the fix.
 */
export function connectionCeiling(
  requested: number,
  descriptorLimit: number | undefined,
): { readonly max: number; readonly warning?: string } {
  if (descriptorLimit === undefined || requested + RESERVED_DESCRIPTORS <= descriptorLimit) return { max: requested };
  const max = Math.max(1, descriptorLimit - RESERVED_DESCRIPTORS);
  return {
    max,
    warning: `MAX_CONNECTIONS ${requested} does not fit the open-file limit of ${descriptorLimit}; ` +
      `serving at most ${max} connections (raise the limit with \`ulimit -n\`, or lower MAX_CONNECTIONS)`,
  };
}

/** A request body that did not arrive within `bodyTimeoutMs`: answer 408 and close the connection. */
export class RequestBodyTimeout extends Error {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`The request body did not arrive within ${timeoutMs} ms`);
    this.name = "RequestBodyTimeout";
    this.timeoutMs = timeoutMs;
  }
}

/** The client closed its connection before its request body had arrived: nobody is left to answer. */
export class ClientDisconnected extends Error {
  constructor(cause?: unknown) {
    super("The client closed the connection before its request body had arrived", { cause });
    this.name = "ClientDisconnected";
  }
}

/** A request whose body must arrive before a deadline, and whether that deadline passed. */
export interface GuardedRequest {
  readonly request: Request;
  /** Whether the body failed to arrive in time (the response should then close the connection). */
  timedOut(): boolean;
}

/** A body that says its length, up to this many bytes, is read whole before the app runs ({@link readSmallBody}). */
export const SMALL_BODY_BYTES = 64 * 1024;

const smallBodies = new WeakMap<Request, string>();

/** The text of a request's body that the server read whole before the app ran, if it did. */
export function prereadBody(request: Request): string | undefined {
  return smallBodies.get(request);
}

/**
 * Reads a small body whole within `timeoutMs`, so that the app gets it without a guarded copy
 * of the request (that copy — a stream, a `Request`, a timer — cost a POST more than the rest
 * of the service's work on a small one: `bench/RESULTS.md`, "A2A and webhooks"). Small: a
 * `Content-Length` up to {@link SMALL_BODY_BYTES} and no `Transfer-Encoding`. Answers `read`
 * (the text is {@link prereadBody}'s), `timeout`, `gone` (the connection broke), or `other` (not
 * small: guard it with {@link guardRequestBody}).
 *
 * @example
 * ```ts
 * const request = new Request("http://x/", { method: "POST", body: "{}", headers: { "content-length": "2" } });
 * await readSmallBody(request, 30_000); // "read"
 * prereadBody(request); // "{}"
 * ```
 */
export async function readSmallBody(
  request: Request,
  timeoutMs: number,
): Promise<"read" | "timeout" | "gone" | "other"> {
  const length = request.headers.get("content-length");
  if (length === null || request.headers.has("transfer-encoding") || !(Number(length) <= SMALL_BODY_BYTES)) {
    return "other";
  }
  if (!request.body || UNCOPYABLE_METHODS.has(request.method.toUpperCase())) return "other";
  let forget = () => {};
  const expired = new Promise<"timeout">((resolve) => forget = whenExpired(timeoutMs, () => resolve("timeout")));
  try {
    const text = await Promise.race([request.text(), expired]);
    if (text === "timeout") return "timeout";
    smallBodies.set(request, text);
    return "read";
  } catch {
    return "gone";
  } finally {
    forget();
  }
}

/**
 * Deadlines of the small bodies being read: one timer looks at them all, not a timer each. It
 * stops at a look that finds none, not when the last is forgotten: under load, bodies come and
 * go between its looks, and a timer made and cleared per request cost more than the read.
 */
const deadlines = new Set<{ readonly at: number; readonly expire: () => void }>();
let sweeper: ReturnType<typeof setInterval> | undefined;

/** Calls `expire` about `timeoutMs` from now (to a tenth of a second) unless the returned function is called first. */
function whenExpired(timeoutMs: number, expire: () => void): () => void {
  const entry = { at: performance.now() + timeoutMs, expire };
  deadlines.add(entry);
  sweeper ??= setInterval(() => {
    if (deadlines.size === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
      return;
    }
    const now = performance.now();
    for (const deadline of deadlines) {
      if (deadline.at > now) continue;
      deadlines.delete(deadline);
      deadline.expire();
    }
  }, Math.min(100, timeoutMs));
  return () => void deadlines.delete(entry);
}

/** Methods `new Request()` refuses: a request of one is passed on as it is. */
const UNCOPYABLE_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);

/**
 * Guards `request`'s body: reading it fails with `RequestBodyTimeout` once `timeoutMs` have
 * passed without its end, and with `ClientDisconnected` when the connection breaks mid-body.
 * A request without a body, or of a method no copy can have (TRACE, TRACK, CONNECT), is returned
 * as it is. The copy reads the original's `signal` only
 * when something asks for it (reading it makes Deno's server warn about legacy aborts).
 *
 * @example
 * ```ts
 * const guarded = guardRequestBody(new Request("http://x/", { method: "POST", body: "{}" }), 30_000);
 * await guarded.request.text(); // "{}"
 * ```
 */
export function guardRequestBody(request: Request, timeoutMs: number): GuardedRequest {
  const source = request.body;
  // No copy can be built with these methods ("Method is forbidden"); the app answers them without reading.
  if (!source || UNCOPYABLE_METHODS.has(request.method.toUpperCase())) return { request, timedOut: () => false };
  let expired = false;
  let settled = false;
  const reader = source.getReader();
  const controllerRef: { current?: ReadableStreamDefaultController<Uint8Array> } = {};
  const settle = () => {
    settled = true;
    clearTimeout(timer);
  };
  const timer = setTimeout(() => {
    if (settled) return;
    expired = true;
    settle();
    controllerRef.current?.error(new RequestBodyTimeout(timeoutMs));
    reader.cancel().catch(() => {});
  }, timeoutMs);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controllerRef.current = controller;
    },
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (settled) return;
        settle();
        return controller.error(new ClientDisconnected(error));
      }
      if (settled) return;
      if (chunk.done) {
        settle();
        controller.close();
      } else controller.enqueue(chunk.value);
    },
    cancel(reason) {
      settle();
      return reader.cancel(reason);
    },
  });
  const copy = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body,
    duplex: "half", // Node's Request wants it for a stream
  } as RequestInit);
  Object.defineProperty(copy, "signal", { get: () => request.signal });
  return { request: copy, timedOut: () => expired };
}

/**
 * The answer to a request whose body did not arrive in time: the handler's own when it said
 * 408, else an RFC 9457 problem (a handler may have turned the failed read into a 400). The
 * body-timeout error already aborted the handler's read, so its answer is not worth keeping.
 */
export function bodyTimeoutAnswer(response: Response, timeoutMs: number, log: ServeLog): Response {
  if (response.status === 408) return closingConnection(response);
  response.body?.cancel().catch(() => {});
  const traceId = crypto.randomUUID().replaceAll("-", "");
  const detail = new RequestBodyTimeout(timeoutMs).message;
  log("debug", `408 traceId=${traceId}: ${detail}`);
  const problem = { type: "about:blank", title: "Request Timeout", status: 408, detail, traceId };
  return new Response(JSON.stringify(problem), {
    status: 408,
    headers: { "content-type": "application/problem+json", connection: "close" },
  });
}

/** `response`, telling the client that this connection closes after it. */
export function closingConnection(response: Response): Response {
  try {
    response.headers.set("connection", "close");
    return response;
  } catch {
    // Immutable headers (a response passed through from fetch): copy it.
    const copy = new Response(response.body, response);
    copy.headers.set("connection", "close");
    return copy;
  }
}
