import type { EnterpriseCredentials } from "../config/mod.ts";
import { type ApiClient, type ClientSettings, createHttpClient, jsonMethods } from "../http/mod.ts";

/** The enterprise API: HTTP Basic against the cluster's origin; paths carry `/v1`. */
export type EnterpriseClient = ApiClient;

/**
 * Enterprise paths include the version prefix; one without it (`bdbs`, `/cluster`) gets `/v1`.
 *
 * @example
 * ```ts
 * import { enterprisePath } from "./client.ts";
 * enterprisePath("bdbs"); // "/v1/bdbs"
 * enterprisePath("/v1/bdbs"); // "/v1/bdbs"
 * ```
 */
export function enterprisePath(path: string): string {
  const withSlash = path.startsWith("/") ? path : `/${path}`;
  return /^\/v\d+(\/|$)/.test(withSlash) ? withSlash : `/v1${withSlash}`;
}

/** The `Authorization` value for HTTP Basic, UTF-8 encoded. */
export function basicAuth(username: string, password: string): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}

/** Builds an enterprise client from resolved credentials. */
export function createEnterpriseClient(credentials: EnterpriseCredentials, settings: ClientSettings): EnterpriseClient {
  const authHeaders = { authorization: basicAuth(credentials.username, credentials.password) };
  const who = credentials.profile ? `profile '${credentials.profile}'` : "environment";
  const http = createHttpClient({
    ...settings,
    baseUrl: credentials.url,
    authHeaders,
    identity: `${who} (user ${credentials.username})`,
  });
  return { http, authHeaders, path: enterprisePath, ...jsonMethods(http, enterprisePath) };
}
