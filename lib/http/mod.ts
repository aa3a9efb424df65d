/**
 * HTTP for the management APIs: transports (TLS options, proxies), a client with
 * authentication, timeouts, retries and classified errors, and `--curl` rendering.
 *
 * @example
 * ```ts
 * import { createFetch, createHttpClient } from "./lib/http/mod.ts";
 * const client = createHttpClient({ baseUrl, authHeaders, identity, timeoutMs: 30_000, fetch: await createFetch({ env }) });
 * ```
 *
 * @module
 */
export { type ApiRequest, createHttpClient, type HttpClient, type HttpClientOptions } from "./client.ts";
export { createFetch, type Fetch, type TransportOptions } from "./transport.ts";
export { DEFAULT_RETRY_POLICY, isRetryable, retryDelay, type RetryPolicy } from "./retry.ts";
export { classifyFailure, describeFailure } from "./classify.ts";
export { toCurl } from "./curl.ts";
