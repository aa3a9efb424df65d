import { StoreCtlError } from "../errors/mod.ts";
import type { Logger } from "../output/mod.ts";
import { classifyFailure, describeFailure, failureInWords, tlsCause } from "./classify.ts";
import { serverMessage } from "./error_body.ts";
import { checkRequest } from "./request_check.ts";
import { DEFAULT_RETRY_POLICY, isRetryable, type Outcome, retryDelay, type RetryPolicy } from "./retry.ts";
import * as time from "../time/mod.ts";
import { after, watchdog } from "./timer.ts";
import { discardBody, type HttpResponse, readText, type Transport } from "./transport.ts";

/** One API request, relative to the client's base URL. */
export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  /** Query string (`limit=10&offset=20`) or parameters. */
  readonly query?: string | URLSearchParams;
  readonly headers?: Readonly<Record<string, string>>;
  /** Text or bytes can be sent again on a retry; a stream is sent once and never retried. */
  readonly body?: string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>;
  /** Aborts the request, its retries and its body. */
  readonly signal?: AbortSignal;
  /**
   * How long the server may take to send the first byte of the body (connecting and the headers
   * included), for a response it builds before it sends it (a support package); later silences
   * are bounded by the client's `timeoutMs`. Default `timeoutMs`. Running out is a `timeout`
   * error with `reason: "first_byte_timeout"`.
   */
  readonly firstByteTimeoutMs?: number;
}

/** A retry about to happen, for a one-line notice. */
export interface RetryEvent {
  readonly method: string;
  readonly url: string;
  /** 1 for the first retry. */
  readonly retry: number;
  readonly retries: number;
  readonly delayMs: number;
  /** `HTTP 503`, `connection refused`, … */
  readonly reason: string;
}

/** What a client is built from. */
export interface HttpClientOptions {
  readonly baseUrl: string;
  /** Authentication headers added to every request. */
  readonly authHeaders: Readonly<Record<string, string>>;
  /** A W3C `traceparent` sent with every request, so that the server's spans join the caller's trace. */
  readonly traceparent?: string;
  /** Who is calling, masked, for error messages: `profile 'prod' (key abcd…wxyz)`. */
  readonly identity: string;
  readonly transport: Transport;
  /** Limit for connecting and receiving headers, and for any silence while reading the body. */
  readonly timeoutMs: number;
  readonly retry?: RetryPolicy;
  readonly logger?: Logger;
  readonly onRetry?: (event: RetryEvent) => void;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now?: () => number;
  readonly random?: () => number;
}

/** Sends API requests with authentication, timeouts and retries. */
export interface HttpClient {
  /** The absolute URL of a request. */
  url(request: Pick<ApiRequest, "path" | "query">): string;
  /**
   * Sends the request and returns the response when it is a success (2xx), body unread;
   * otherwise throws a `StoreCtlError` whose code says what went wrong.
   */
  send(request: ApiRequest): Promise<HttpResponse>;
}

/**
 * Builds a client.
 *
 * @example
 * ```ts
 * import { createHttpClient, fetchTransport, readText } from "./mod.ts";
 * const client = createHttpClient({
 *   baseUrl: "https://cluster.example:9443",
 *   authHeaders: { authorization: "Basic YTpi" },
 *   identity: "user a",
 *   transport: fetchTransport(fetch),
 *   timeoutMs: 30_000,
 * });
 * const bdbs = JSON.parse(await readText(await client.send({ method: "GET", path: "/v1/bdbs" })));
 * ```
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const policy = options.retry ?? DEFAULT_RETRY_POLICY;
  const sleep = options.sleep ?? time.sleep;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const log = (level: "info" | "debug" | "trace", message: string) => options.logger?.log(level, "http", message);

  const url = (request: Pick<ApiRequest, "path" | "query">) => {
    const query = request.query?.toString() ?? "";
    return `${options.baseUrl}${request.path}${query ? `?${query}` : ""}`;
  };

  async function attempt(request: ApiRequest, target: string, headers: Record<string, string>) {
    const controller = new AbortController();
    const first = request.firstByteTimeoutMs;
    const asked = Date.now();
    const disarm = after(first ?? options.timeoutMs, () => controller.abort());
    const signal = request.signal ? AbortSignal.any([request.signal, controller.signal]) : controller.signal;
    try {
      const response = await options.transport({
        url: target,
        method: request.method,
        headers,
        body: request.body,
        signal,
      });
      disarm();
      const firstByte = first === undefined
        ? undefined
        : { ms: Math.max(0, asked + first - Date.now()), error: () => firstByteLate(target, first) };
      return guardBody(response, options.timeoutMs, target, request.signal, firstByte);
    } catch (error) {
      disarm();
      request.signal?.throwIfAborted();
      if (controller.signal.aborted) {
        if (first !== undefined) throw firstByteLate(target, first);
        throw new StoreCtlError("timeout", `No response from ${target} within ${seconds(options.timeoutMs)}`);
      }
      throw error;
    }
  }

  return {
    url,
    async send(request) {
      const method = request.method.toUpperCase();
      const target = url(request);
      const headers: Record<string, string> = { accept: "application/json", ...options.authHeaders };
      if (options.traceparent !== undefined) headers.traceparent = options.traceparent;
      Object.assign(headers, request.headers);
      checkRequest(method, target, headers, request.body !== undefined);
      const streamed = request.body instanceof ReadableStream;
      for (let retry = 0;; retry++) {
        const started = now();
        log("debug", `${method} ${target}`);
        let outcome: Outcome;
        let failure: unknown;
        let response: HttpResponse | undefined;
        try {
          response = await attempt({ ...request, method }, target, headers);
          log("debug", `${method} ${target} → ${response.status} in ${now() - started} ms`);
          if (response.status >= 200 && response.status < 300) return response;
          outcome = { kind: "status", status: response.status, retryAfter: response.headers.get("retry-after") };
        } catch (error) {
          if (error instanceof StoreCtlError || request.signal?.aborted) throw error;
          failure = error;
          const kind = classifyFailure(error);
          if (kind === "tls") throw tlsError(target, error);
          if (kind === "protocol") throw protocolError(target, error);
          outcome = { kind: kind === "refused" || kind === "dns" ? "connect" : "reset" };
        }
        const delay = !streamed && retry < policy.retries && isRetryable(method, outcome)
          ? retryDelay(retry, outcome.kind === "status" ? outcome.retryAfter : undefined, policy, now(), random)
          : undefined;
        if (delay === undefined) {
          if (response) {
            throw await httpError(method, request.path, response, options.identity, retry + 1, (m) => log("debug", m));
          }
          throw networkError(target, failure);
        }
        if (response) await discardBody(response);
        const reason = outcome.kind === "status" ? `HTTP ${outcome.status}` : failureInWords(failure);
        const event = { method, url: target, retry: retry + 1, retries: policy.retries, delayMs: delay, reason };
        // One line per retry: the caller's when it reports them, else the log's.
        if (options.onRetry) options.onRetry(event);
        else log("info", retryLine(event));
        await sleep(delay, request.signal);
      }
    },
  };
}

/**
 * A retry as one line, the same on every runtime:
 * `Retrying GET https://… in 250 ms: connection refused (retry 1 of 3)`.
 */
export function retryLine(event: RetryEvent): string {
  const wait = event.delayMs < 1000 ? `${Math.round(event.delayMs)} ms` : seconds(event.delayMs);
  return `Retrying ${event.method} ${event.url} in ${wait}: ${event.reason} (retry ${event.retry} of ${event.retries})`;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** The first byte did not come in time. */
function firstByteLate(target: string, ms: number): StoreCtlError {
  return new StoreCtlError("timeout", `${target} sent nothing within ${seconds(ms)} of being asked`, {
    reason: "first_byte_timeout",
  });
}

/**
 * Guards the body: a read that waits more than `timeoutMs` for the server fails with a timeout
 * (the first one, when `firstByte` is given, its `ms` and its error instead), and a connection
 * that breaks mid-body fails with a network error naming the URL.
 */
function guardBody(
  response: HttpResponse,
  timeoutMs: number,
  target: string,
  signal?: AbortSignal,
  firstByte?: { ms: number; error: () => StoreCtlError },
): HttpResponse {
  if (!response.body) return response;
  const reader = response.body.getReader();
  let silent: StoreCtlError | undefined;
  const onSilence = (error: () => StoreCtlError) => () => {
    silent = error();
    reader.cancel(silent).catch(() => {});
  };
  const idle = watchdog(
    timeoutMs,
    onSilence(() => new StoreCtlError("timeout", `${target} sent nothing for ${seconds(timeoutMs)}`)),
  );
  // Until the first byte, its own allowance; from then on the idle watchdog.
  let first = firstByte && watchdog(firstByte.ms, onSilence(firstByte.error));
  const stop = () => {
    idle.stop();
    first?.stop();
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const watching = first ?? idle;
      watching.watch();
      try {
        const { done, value } = await reader.read();
        if (silent) controller.error(silent);
        else if (done) {
          stop();
          controller.close();
        } else {
          if (first && value.length > 0) {
            first.stop();
            first = undefined;
          }
          controller.enqueue(value);
        }
      } catch (error) {
        stop();
        reader.cancel().catch(() => {});
        if (signal?.aborted) return controller.error(signal.reason);
        controller.error(
          silent ?? new StoreCtlError(
            "network",
            `The connection to ${target} broke while receiving the response: ${describeFailure(error)}`,
            { cause: error, tips: ["Try again"] },
          ),
        );
      } finally {
        watching.done();
      }
    },
    cancel: (reason) => {
      stop();
      return reader.cancel(reason);
    },
  });
  return { status: response.status, statusText: response.statusText, headers: response.headers, body };
}

/**
 * `: <the server's message>`, without the words ours already starts with: a server that says
 * "Authentication failed: bad password" adds only "bad password", one that says just
 * "Authentication failed" adds nothing.
 */
function serverSaid(ours: string, message: string | undefined): string {
  const rest = message?.toLowerCase().startsWith(ours.toLowerCase())
    ? message.slice(ours.length).replace(/^[\s:.,;-]+/, "")
    : message;
  return rest ? `: ${rest}` : "";
}

async function httpError(
  method: string,
  path: string,
  response: HttpResponse,
  identity: string,
  attempts: number,
  log: (message: string) => void,
) {
  const status = response.status;
  const body = await readText(response).catch(() => "");
  if (body.trim()) log(`${method} ${path} answered HTTP ${status} with: ${body.slice(0, 4000)}`);
  const message = serverMessage(body);
  const said = message ? `: ${message}` : "";
  switch (status) {
    case 401:
      return new StoreCtlError(
        "auth",
        `Authentication failed for ${identity}${serverSaid("Authentication failed", message)}`,
        {
          status,
        },
      );
    case 403:
      return new StoreCtlError("auth", `Permission denied for ${identity}${serverSaid("Permission denied", message)}`, {
        status,
      });
    case 404:
      return new StoreCtlError("not_found", `Not found: ${method} ${path}${said}`, { status });
    case 400:
    case 422:
      return new StoreCtlError("validation", message ?? `The server rejected ${method} ${path} (HTTP ${status})`, {
        status,
      });
    case 409:
      return new StoreCtlError("conflict", message ?? `Conflict on ${method} ${path}`, { status });
    case 429: {
      const retryAfter = response.headers.get("retry-after");
      return new StoreCtlError(
        "rate_limited",
        `Rate limited: ${method} ${path} got HTTP 429 after ${attempts} attempt${attempts > 1 ? "s" : ""}${said}`,
        { status, tips: [`Wait and try again${retryAfter ? ` (the server asked for ${retryAfter} s)` : ""}`] },
      );
    }
    default:
      return new StoreCtlError("api", `${method} ${path} failed with HTTP ${status}${said}`, { status });
  }
}

function tlsError(target: string, cause: unknown): StoreCtlError {
  return new StoreCtlError("tls", `TLS certificate verification failed for ${target}: ${tlsCause(cause)}`, {
    cause,
  });
}

function protocolError(target: string, cause: unknown): StoreCtlError {
  const secure = target.startsWith("https:");
  const other = secure ? target.replace(/^https:/, "http:") : target.replace(/^http:/, "https:");
  const message = secure
    ? `${new URL(target).host} did not answer with TLS: it looks like a plain HTTP port. Did you mean ${other}?`
    : `${new URL(target).host} did not answer with plain HTTP: it looks like a TLS port. Did you mean ${other}?`;
  return new StoreCtlError("config", message, {
    cause,
    tips: ["Fix the scheme of the URL in the profile or environment"],
  });
}

function networkError(target: string, cause: unknown): StoreCtlError {
  const kind = classifyFailure(cause);
  const message = kind === "refused" || kind === "dns"
    ? `Failed to connect to ${target}: ${failureInWords(cause)}`
    : kind === "reset"
    ? `The connection to ${target} was closed unexpectedly`
    : `Request to ${target} failed: ${describeFailure(cause)}`;
  return new StoreCtlError("network", message, {
    cause,
    tips: ["Check the URL and that the server is running and reachable"],
  });
}
