import { StoreCtlError } from "../errors/mod.ts";
import type { Logger } from "../output/mod.ts";
import { classifyFailure, describeFailure } from "./classify.ts";
import { DEFAULT_RETRY_POLICY, isRetryable, type Outcome, retryDelay, type RetryPolicy } from "./retry.ts";
import type { Fetch } from "./transport.ts";

/** One API request, relative to the client's base URL. */
export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  /** Query string (`limit=10&offset=20`) or parameters. */
  readonly query?: string | URLSearchParams;
  readonly headers?: Readonly<Record<string, string>>;
  /** Kept as bytes or text so a retry can send it again. */
  readonly body?: string | Uint8Array<ArrayBuffer>;
}

/** What a client is built from. */
export interface HttpClientOptions {
  readonly baseUrl: string;
  /** Authentication headers added to every request. */
  readonly authHeaders: Readonly<Record<string, string>>;
  /** Who is calling, masked, for error messages: `profile 'prod' (key abcd…wxyz)`. */
  readonly identity: string;
  readonly fetch: Fetch;
  /** Limit for connecting and receiving headers, and for any silence while reading the body. */
  readonly timeoutMs: number;
  readonly retry?: RetryPolicy;
  readonly logger?: Logger;
  readonly sleep?: (ms: number) => Promise<void>;
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
  send(request: ApiRequest): Promise<Response>;
}

/**
 * Builds a client.
 *
 * @example
 * ```ts
 * const client = createHttpClient({ baseUrl, authHeaders, identity, fetch: await createFetch({ env }), timeoutMs: 30_000 });
 * const bdbs = await (await client.send({ method: "GET", path: "/v1/bdbs" })).json();
 * ```
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const policy = options.retry ?? DEFAULT_RETRY_POLICY;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const log = (level: "info" | "debug" | "trace", message: string) => options.logger?.log(level, "http", message);

  const url = (request: Pick<ApiRequest, "path" | "query">) => {
    const query = request.query?.toString() ?? "";
    return `${options.baseUrl}${request.path}${query ? `?${query}` : ""}`;
  };

  async function attempt(request: ApiRequest, target: string): Promise<Response> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), options.timeoutMs);
    try {
      const response = await options.fetch(target, {
        method: request.method,
        headers: { accept: "application/json", ...options.authHeaders, ...request.headers },
        body: request.body,
        signal: controller.signal,
      });
      clearTimeout(timer);
      return guardBody(response, options.timeoutMs, target);
    } catch (error) {
      clearTimeout(timer);
      if (controller.signal.aborted) {
        throw new StoreCtlError("timeout", `No response from ${target} within ${options.timeoutMs / 1000} s`, {
          tips: ["Raise the limit with --timeout <seconds>, or check that the server is reachable"],
        });
      }
      throw error;
    }
  }

  return {
    url,
    async send(request) {
      const method = request.method.toUpperCase();
      const target = url(request);
      for (let retry = 0;; retry++) {
        const started = now();
        log("debug", `${method} ${target}`);
        let outcome: Outcome;
        let failure: unknown;
        let response: Response | undefined;
        try {
          response = await attempt(request, target);
          log("debug", `${method} ${target} → ${response.status} in ${now() - started} ms`);
          if (response.ok) return response;
          outcome = { kind: "status", status: response.status, retryAfter: response.headers.get("retry-after") };
        } catch (error) {
          if (error instanceof StoreCtlError) throw error;
          failure = error;
          const kind = classifyFailure(error);
          if (kind === "tls") throw tlsError(target, error);
          outcome = { kind: kind === "refused" || kind === "dns" ? "connect" : "reset" };
        }
        const delay = retry < policy.retries && isRetryable(method, outcome)
          ? retryDelay(retry, outcome.kind === "status" ? outcome.retryAfter : undefined, policy, now(), random)
          : undefined;
        if (delay === undefined) {
          if (response) throw await httpError(method, request.path, response, options.identity, retry + 1);
          throw networkError(target, failure);
        }
        await response?.body?.cancel();
        const why = outcome.kind === "status" ? `HTTP ${outcome.status}` : describeFailure(failure);
        log(
          "info",
          `retrying ${method} ${target} in ${delay} ms after ${why} (retry ${retry + 1} of ${policy.retries})`,
        );
        await sleep(delay);
      }
    },
  };
}

/**
 * Guards the body: a read that waits more than `timeoutMs` for the server fails with a timeout,
 * and a connection that breaks mid-body fails with a network error naming the URL.
 */
function guardBody(response: Response, timeoutMs: number, target: string): Response {
  if (!response.body) return response;
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const silence = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(
            new StoreCtlError("timeout", `${target} sent nothing for ${timeoutMs / 1000} s`, {
              tips: ["Raise the limit with --timeout <seconds>"],
            }),
          );
        }, timeoutMs);
      });
      try {
        const { done, value } = await Promise.race([reader.read(), silence]);
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        reader.cancel().catch(() => {});
        controller.error(
          error instanceof StoreCtlError ? error : new StoreCtlError(
            "network",
            `The connection to ${target} broke while receiving the response: ${describeFailure(error)}`,
            { cause: error, tips: ["Try again; requests that are safe to repeat can also use --retries"] },
          ),
        );
      } finally {
        clearTimeout(timer);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** The message a server put in its error body, if any. */
function serverMessage(text: string): string | undefined {
  try {
    const body = JSON.parse(text);
    const found = body?.message ?? body?.description ?? body?.error?.description ?? body?.detail ?? body?.title ??
      (typeof body?.error === "string" ? body.error : undefined);
    return typeof found === "string" ? found : undefined;
  } catch {
    const trimmed = text.trim();
    return trimmed ? trimmed.slice(0, 200) : undefined;
  }
}

async function httpError(method: string, path: string, response: Response, identity: string, attempts: number) {
  const status = response.status;
  const message = serverMessage(await response.text().catch(() => ""));
  const said = message ? `: ${message}` : "";
  switch (status) {
    case 401:
      return new StoreCtlError("auth", `Authentication failed for ${identity}${said}`, {
        status,
        tips: ["Check the credentials: ctl profile show <name>, or the STORE_* environment variables"],
      });
    case 403:
      return new StoreCtlError("auth", `Permission denied for ${identity}${said}`, { status });
    case 404:
      return new StoreCtlError("not_found", `Not found: ${method} ${path}${said}`, { status });
    case 400:
    case 422:
      return new StoreCtlError("validation", message ?? `The server rejected ${method} ${path} (HTTP ${status})`, {
        status,
      });
    case 409:
      return new StoreCtlError("conflict", message ?? `Conflict on ${method} ${path}`, { status });
    case 429:
      return new StoreCtlError(
        "rate_limited",
        `Rate limited: ${method} ${path} got HTTP 429 after ${attempts} attempt${attempts > 1 ? "s" : ""}${said}`,
        {
          status,
          tips: [
            `Wait and try again${
              response.headers.get("retry-after")
                ? ` (the server asked for ${response.headers.get("retry-after")} s)`
                : ""
            }`,
          ],
        },
      );
    default:
      return new StoreCtlError("api", `${method} ${path} failed with HTTP ${status}${said}`, { status });
  }
}

function tlsError(target: string, cause: unknown): StoreCtlError {
  return new StoreCtlError("tls", `TLS certificate verification failed for ${target}: ${describeFailure(cause)}`, {
    cause,
    tips: [
      "Trust the cluster's certificate: --ca-cert <file> (or ca_cert in the profile, or STORE_ENTERPRISE_CA_CERT)",
      "Or accept any certificate: --insecure (or insecure = true in the profile, or STORE_ENTERPRISE_INSECURE=true)",
    ],
  });
}

function networkError(target: string, cause: unknown): StoreCtlError {
  const kind = classifyFailure(cause);
  const message = kind === "refused"
    ? `Failed to connect to ${target}: connection refused`
    : kind === "dns"
    ? `Failed to connect to ${target}: host not found`
    : kind === "reset"
    ? `The connection to ${target} was closed unexpectedly`
    : `Request to ${target} failed: ${describeFailure(cause)}`;
  return new StoreCtlError("network", message, {
    cause,
    tips: ["Check the URL and that the server is running and reachable"],
  });
}
