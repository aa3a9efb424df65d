/**
 * The delivery core of outgoing webhooks (Standard Webhooks): signing, the guard on destinations, one attempt, and
 * when to retry.
 *
 * @example
 * ```ts
 * import { checkUrl, resolveDestination } from "./mod.ts";
 * const policy = { allowHttp: false, allowHosts: [] };
 * const checked = checkUrl("https://10.0.0.5/hooks", policy);
 * console.log(checked.ok ? await resolveDestination(checked.url, policy) : checked.reason);
 * ```
 *
 * @module
 */
export { newSecret, signature, webhookHeaders } from "./signature.ts";
export {
  checkUrl,
  type Destination,
  type DestinationPolicy,
  type Lookup,
  resolveDestination,
  type UrlCheck,
} from "./destination.ts";
export { type AddressClass, classifyAddress } from "./address_class.ts";
export { attemptDelivery, type AttemptRequest, type AttemptResult } from "./attempt.ts";
export { type BackoffOptions, giveUpAt, RETRY_WINDOW_MS, retryDelayMs, shouldRetry } from "./backoff.ts";
export {
  DEFAULT_DELIVERY,
  type DeliveryConfig,
  type DeliveryOutcome,
  type Dispatcher,
  type DispatcherOptions,
  startDispatcher,
} from "./dispatcher.ts";
export { deliveryBody } from "./payload.ts";
