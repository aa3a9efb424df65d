import type { EnterpriseCredentials } from "../config/mod.ts";
import { type ApiClient, type ClientSettings, clientSettings, createHttpClient, jsonMethods } from "../http/mod.ts";

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

/** Where and as whom to call a cluster: its origin (`https://cluster:9443`), a user and a password. */
export type EnterpriseAccess = Pick<EnterpriseCredentials, "url" | "username" | "password" | "profile">;

/**
 * Builds an enterprise client (resolved credentials fit too). `settings` default to the global
 * `fetch` and a 30 s timeout; a self-signed cluster needs a transport that trusts it.
 *
 * @example
 * ```ts
 * import { createEnterpriseClient, listBdbs } from "./mod.ts";
 * const cluster = createEnterpriseClient({ url: "https://cluster.example:9443", username: "admin@example.com", password: "…" });
 * const names = (await listBdbs(cluster)).map((bdb) => bdb.name);
 * ```
 */
export function createEnterpriseClient(
  credentials: EnterpriseAccess,
  settings: Partial<ClientSettings> = {},
): EnterpriseClient {
  const authHeaders = { authorization: basicAuth(credentials.username, credentials.password) };
  const who = credentials.profile ? `profile '${credentials.profile}'` : "environment";
  const http = createHttpClient({
    ...clientSettings(settings),
    baseUrl: credentials.url,
    authHeaders,
    identity: `${who} (user ${credentials.username})`,
  });
  return { http, authHeaders, path: enterprisePath, ...jsonMethods(http, enterprisePath) };
}
