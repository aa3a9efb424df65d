import type { CloudCredentials } from "../config/mod.ts";
import { mask } from "../errors/mod.ts";
import { type ApiClient, type ClientSettings, createHttpClient, jsonMethods } from "../http/mod.ts";

/** The cloud API: key and secret headers against a base URL that ends in `/v1`. */
export type CloudClient = ApiClient;

/**
 * Cloud paths are relative to a base that ends in `/v1`; a path that repeats `/v1` (copied from
 * the API reference) would become `/v1/v1/…`, so the duplicate is dropped.
 *
 * @example
 * ```ts
 * import { cloudPath } from "./client.ts";
 * cloudPath("https://api.example.com/v1", "/v1/subscriptions"); // "/subscriptions"
 * cloudPath("https://api.example.com/v1", "subscriptions"); // "/subscriptions"
 * ```
 */
export function cloudPath(baseUrl: string, path: string): string {
  const withSlash = path.startsWith("/") ? path : `/${path}`;
  return /\/v1$/.test(baseUrl) && /^\/v1(\/|$)/.test(withSlash) ? withSlash.slice(3) || "/" : withSlash;
}

/** Builds a cloud client from resolved credentials. */
export function createCloudClient(credentials: CloudCredentials, settings: ClientSettings): CloudClient {
  const authHeaders = { "x-api-key": credentials.apiKey, "x-api-secret-key": credentials.apiSecret };
  const who = credentials.profile ? `profile '${credentials.profile}'` : "environment";
  const http = createHttpClient({
    ...settings,
    baseUrl: credentials.apiUrl,
    authHeaders,
    identity: `${who} (key ${mask(credentials.apiKey)})`,
  });
  const path = (p: string) => cloudPath(credentials.apiUrl, p);
  return { http, authHeaders, path, ...jsonMethods(http, path) };
}
