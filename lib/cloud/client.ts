import type { CloudCredentials } from "../config/mod.ts";
import { mask } from "../errors/mod.ts";
import { type ApiClient, type ClientSettings, clientSettings, createHttpClient, jsonMethods } from "../http/mod.ts";

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

/** Where and as whom to call the cloud API: its base (ending in `/v1`), a key and a secret. */
export type CloudAccess = Pick<CloudCredentials, "apiKey" | "apiSecret" | "apiUrl" | "profile">;

/**
 * Builds a cloud client (resolved credentials fit too). `settings` default to the global `fetch`
 * and a 30 s timeout.
 *
 * @example
 * ```ts
 * import { createCloudClient, listSubscriptions } from "./mod.ts";
 * const cloud = createCloudClient({ apiKey: "…", apiSecret: "…", apiUrl: "https://api.example.com/v1" });
 * const ids = (await listSubscriptions(cloud)).map((s) => s.id);
 * ```
 */
export function createCloudClient(credentials: CloudAccess, settings: Partial<ClientSettings> = {}): CloudClient {
  const authHeaders = { "x-api-key": credentials.apiKey, "x-api-secret-key": credentials.apiSecret };
  const who = credentials.profile ? `profile '${credentials.profile}'` : "environment";
  const http = createHttpClient({
    ...clientSettings(settings),
    baseUrl: credentials.apiUrl,
    authHeaders,
    identity: `${who} (key ${mask(credentials.apiKey)})`,
  });
  const path = (p: string) => cloudPath(credentials.apiUrl, p);
  return { http, authHeaders, path, ...jsonMethods(http, path) };
}
