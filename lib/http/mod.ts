/**
 * HTTP for the management APIs: a client with authentication, timeouts, retries and classified
 * errors over a pluggable transport (the runtime provides real ones), and `--curl` rendering.
 *
 * @example
 * ```ts
 * import { createHttpClient, fetchTransport } from "./mod.ts";
 * const client = createHttpClient({
 *   baseUrl: "https://cluster.example:9443",
 *   authHeaders: {},
 *   identity: "anonymous",
 *   transport: fetchTransport(fetch),
 *   timeoutMs: 30_000,
 * });
 * ```
 *
 * @module
 */
export {
  type ApiRequest,
  createHttpClient,
  type HttpClient,
  type HttpClientOptions,
  type RetryEvent,
  retryLine,
} from "./client.ts";
export {
  discardBody,
  fetchTransport,
  type HttpResponse,
  proxyConfigured,
  readText,
  type Transport,
  type TransportOptions,
  type TransportRequest,
} from "./transport.ts";
export { DEFAULT_RETRY_POLICY, isRetryable, isTransient, retryDelay, type RetryPolicy } from "./retry.ts";
export { classifyFailure, describeFailure, failureInWords } from "./classify.ts";
export { poll, pollInterval, type PollOptions, type PollStep } from "./poll.ts";
export { checkRequest, MAX_URL_LENGTH } from "./request_check.ts";
export { toCurl } from "./curl.ts";
export { type ApiClient, type ClientSettings, clientSettings, jsonMethods, readJson } from "./json.ts";
