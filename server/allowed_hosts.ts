/**
 * Which `Host` names the service answers to. Against DNS rebinding: a page of `evil.example`
 * whose name is made to point at 127.0.0.1 is, to the browser, the same origin as the service
 * behind it, so it could read and change everything of a service that runs open. Its requests
 * still name `evil.example` in `Host`; refused, the page gets nothing.
 *
 * Always answered: `localhost` and its subdomains (browsers resolve them to loopback themselves,
 * never through DNS) and IP addresses (no page's name can turn into an address: a page at an
 * address is the service's own) — the defaults of Vite and webpack-dev-server. Other names only
 * when `ALLOWED_HOSTS` lists them.
 *
 * @module
 */
import type { Context } from "hono";
import { ProblemException } from "./errors.ts";

/** Whether `hostname` (as a URL has it: lower case, IPv6 in brackets, no port) is a local name or an address. */
export function isLocalHostName(hostname: string): boolean {
  return hostname === "localhost" || hostname.endsWith(".localhost") ||
    /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname) || /^\[[0-9a-f:.]+\]$/.test(hostname);
}

/** A host name, or a domain with a leading dot (`.corp.example`: it and every name under it). */
const NAME = /^\.?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/**
 * The names of an `ALLOWED_HOSTS` value (comma-separated, lower-cased); throws naming each entry
 * that is not a host name or a leading-dot domain (a scheme, a port, `*`).
 */
export function parseAllowedHosts(value: string): string[] {
  const names = value.split(",").map((n) => n.trim().toLowerCase()).filter(Boolean);
  const bad = names.filter((n) => !NAME.test(n));
  if (bad.length > 0) {
    throw new Error(
      `ALLOWED_HOSTS must list host names (svc.example) or domains with a leading dot (.corp.example), without ` +
        `scheme or port; not ${bad.map((n) => `'${n}'`).join(", ")}`,
    );
  }
  return names;
}

/** 421: a request addressed to a name this service does not answer to. */
export class MisdirectedRequest extends ProblemException {
  constructor(detail: string) {
    super(421, detail);
    this.name = "MisdirectedRequest";
  }
}

/** The host name of an absolute URL, as the URL parser wrote it (without the port). */
function hostnameOf(url: string): string {
  const start = url.indexOf("//") + 2;
  let end = url.indexOf("/", start);
  if (end === -1) end = url.length;
  const host = url.slice(start, end);
  return host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0];
}

/**
 * The check of a request's `Host`: local, an address, or one of `names` (exact, or under a
 * leading-dot domain) passes; another throws a 421 naming `ALLOWED_HOSTS`.
 */
export function hostCheck(names: readonly string[]): (c: Context) => void {
  const exact = new Set(names.filter((n) => !n.startsWith(".")));
  const domains = names.filter((n) => n.startsWith("."));
  const allowed = (host: string) =>
    isLocalHostName(host) || exact.has(host) || domains.some((d) => host === d.slice(1) || host.endsWith(d));
  return (c) => {
    const host = hostnameOf(c.req.url).toLowerCase();
    if (allowed(host)) return;
    throw new MisdirectedRequest(
      `This service does not answer to the name '${host}': it answers to localhost, IP addresses` +
        `${names.length > 0 ? ` and ${names.join(", ")}` : ""} (a page of another site may have made its name ` +
        `point here: DNS rebinding). If '${host}' is this service's name, add it to ALLOWED_HOSTS`,
    );
  };
}
