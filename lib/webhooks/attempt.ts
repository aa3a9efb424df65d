/**
 * One delivery attempt of a webhook: a POST to the address `resolveDestination` checked, and nowhere else.
 *
 * @module
 */

/** What `attemptDelivery` sends, and where. */
export interface AttemptRequest {
  /** The webhook URL: its hostname goes in `Host` and is what the TLS certificate must be valid for. */
  readonly url: URL;
  /** The address to connect to, resolved and checked before (no new lookup happens here). */
  readonly address: string;
  readonly family: 4 | 6;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The whole attempt, from connecting to the status line and the start of the body: 10 s by default. */
  readonly timeoutMs?: number;
  /** A CA certificate (PEM) to trust besides the system's, for private receivers and tests. */
  readonly ca?: string;
}

/** How an attempt went: `ok` on a 2xx; `status` when the receiver answered; `error` when it failed; its duration. */
export interface AttemptResult {
  ok: boolean;
  status?: number;
  error?: string;
  ms: number;
}

/** The most of a receiver's answer that is read (and dropped): enough to finish a small answer on its connection. */
const BODY_LIMIT = 4096;

/**
 * POSTs `body` to `url` through a connection to `address`, and never throws: a network error, a TLS failure or no
 * answer within `timeoutMs` is returned as `error`. Redirects are not followed (a 3xx is a failed attempt), since the
 * target of one was never checked.
 */
export async function attemptDelivery(request: AttemptRequest): Promise<AttemptResult> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  const timeoutMs = request.timeoutMs ?? 10_000;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  let agent: { destroy(): Promise<void> } | undefined;
  try {
    const undici = await loadUndici();
    const { address, family } = request;
    const pinned = new undici.Agent({
      connect: {
        // Every name this agent connects to is the checked address: a second DNS answer cannot redirect it.
        lookup: (_hostname, options, callback) =>
          options.all ? callback(null, [{ address, family }]) : callback(null, address, family),
        ...(request.ca !== undefined && { ca: request.ca }),
      },
    });
    agent = pinned;
    const response = await pinned.request({
      origin: request.url.origin,
      path: request.url.pathname + request.url.search,
      method: "POST",
      headers: request.headers,
      body: request.body,
      signal: abort.signal,
    });
    await drain(response.body);
    const status = response.statusCode;
    if (status >= 200 && status < 300) return { ok: true, status, ms: ms() };
    const redirect = status >= 300 && status < 400 ? " (redirects are not followed)" : "";
    return { ok: false, status, error: `answered ${status}${redirect}`, ms: ms() };
  } catch (error) {
    return {
      ok: false,
      error: abort.signal.aborted ? `no answer within ${duration(timeoutMs)}` : describe(error),
      ms: ms(),
    };
  } finally {
    clearTimeout(timer);
    await agent?.destroy().catch(() => {});
  }
}

/** Reads at most `BODY_LIMIT` bytes of the answer; what it says, or that it breaks off, changes nothing. */
async function drain(body: AsyncIterable<Uint8Array>): Promise<void> {
  let read = 0;
  try {
    for await (const chunk of body) {
      read += chunk.length;
      if (read >= BODY_LIMIT) break;
    }
  } catch { /* the status is what counts */ }
}

async function loadUndici(): Promise<typeof import("undici")> {
  // Loaded on first use (it costs about 90 ms); a code-split Node bundle exposes it only as `default`.
  const loaded = await import("undici");
  return "Agent" in loaded ? loaded : (loaded as unknown as { default: typeof loaded }).default;
}

function describe(error: unknown): string {
  const { message, code, cause } = error as { message?: string; code?: string; cause?: unknown };
  const text = message || String(error);
  const detail = code && !text.includes(code) ? `${text} (${code})` : text;
  return cause instanceof Error && cause.message && !detail.includes(cause.message)
    ? `${detail}: ${cause.message}`
    : detail;
}

function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
