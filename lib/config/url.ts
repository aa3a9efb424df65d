import { StoreCtlError } from "../errors/mod.ts";
import type { Deployment } from "./document.ts";

/** A base URL split from the user name and password it carried, if any. */
export interface SplitUrl {
  /** The URL without user-info and without a trailing slash. */
  readonly url: string;
  readonly username?: string;
  readonly password?: string;
}

/**
 * Checks a base URL (from a profile, the environment or a flag) and splits off user-info.
 * Mistakes are config errors that name where the value came from and the likely fix: a missing
 * scheme, a scheme other than http(s), no host.
 *
 * @example
 * ```ts
 * import { parseBaseUrl } from "./url.ts";
 * parseBaseUrl("https://admin:secret@cluster:9443/", "enterprise", "--url");
 * // { url: "https://cluster:9443", username: "admin", password: "secret" }
 * ```
 */
export function parseBaseUrl(value: string, deployment: Deployment, where: string): SplitUrl {
  const shown = maskUrl(value);
  const fail = (reason: string, fix: string): never => {
    throw new StoreCtlError("config", `Invalid ${deployment} URL '${shown}' (${where}): ${reason}`, { tips: [fix] });
  };
  const example = deployment === "cloud" ? "https://api.example.com/v1" : "https://cluster.example.com:9443";
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    fail("it has no scheme", `Write it with https:// in front, e.g. https://${value.replace(/^\/+/, "")}`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail("it is not a URL", `Write it like ${example}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    fail(`the scheme must be https or http, not ${url.protocol.slice(0, -1)}`, `Write it like ${example}`);
  }
  if (!url.hostname) fail("it has no host name", `Write it like ${example}`);
  if (url.search || url.hash) fail("it must not have a query or fragment", `Write it like ${example}`);
  const username = url.username ? decodeURIComponent(url.username) : undefined;
  const password = url.password ? decodeURIComponent(url.password) : undefined;
  url.username = "";
  url.password = "";
  return { url: url.href.replace(/\/+$/, ""), username, password };
}

/**
 * The cloud base URL with the API's `/v1` added, when its path does not end in it (a likely
 * mistake, since every cloud path starts there); undefined when it does.
 *
 * @example
 * ```ts
 * import { cloudUrlWithVersion } from "./url.ts";
 * cloudUrlWithVersion("https://api.example.com/"); // "https://api.example.com/v1"
 * cloudUrlWithVersion("https://api.example.com/v1"); // undefined
 * ```
 */
export function cloudUrlWithVersion(baseUrl: string): string | undefined {
  return /\/v1\/?$/.test(new URL(baseUrl).pathname) ? undefined : `${baseUrl.replace(/\/+$/, "")}/v1`;
}

/**
 * Replaces the user-info of every URL in `text` with `***@`, so that credentials written into a
 * URL never reach a log, an error or a listing.
 *
 * @example
 * ```ts
 * import { maskUrl } from "./url.ts";
 * maskUrl("GET https://admin:pw@cluster:9443/v1/bdbs"); // "GET https://***@cluster:9443/v1/bdbs"
 * ```
 */
export function maskUrl(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@'"]+@/gi, "$1***@");
}
