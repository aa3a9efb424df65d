/**
 * The guard against server-side request forgery for webhook URLs: a URL someone registers must not make the service
 * call its own loopback, the private network around it or a cloud metadata endpoint. `checkUrl` judges the URL when it
 * is registered; `resolveDestination` resolves its host once before each delivery and returns the one address to
 * connect to, so the name cannot resolve to somewhere else between the check and the connection (DNS rebinding).
 *
 * @module
 */
import { type AddressClass, classifyAddress } from "./address_class.ts";

/** Which webhook URLs the service delivers to beyond public https ones. */
export interface DestinationPolicy {
  /** Plain `http:` URLs too (`WEBHOOK_ALLOW_HTTP`), for development. */
  readonly allowHttp: boolean;
  /** Host names or address literals delivered to whatever they resolve to (`WEBHOOK_ALLOW_HOSTS`). */
  readonly allowHosts: readonly string[];
}

/** Resolves a host name to all its addresses (the system resolver by default; tests give their own). */
export type Lookup = (hostname: string) => Promise<readonly { address: string; family: number }[]>;

/** `checkUrl`'s answer: the parsed URL, or why it is refused. */
export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/** `resolveDestination`'s answer: the address to connect to, or why there is none. */
export type Destination = { ok: true; address: string; family: 4 | 6 } | { ok: false; reason: string };

const ALLOW_HOSTS = "name the host in WEBHOOK_ALLOW_HOSTS to allow it";

/**
 * Judges a webhook URL without resolving it: https only (http too with `allowHttp`), no user name or password, and a
 * host that is neither an address literal of a refused class nor a name that always means one (`localhost`,
 * `metadata.google.internal`), unless the host is in `allowHosts`.
 */
export function checkUrl(url: string, policy: DestinationPolicy): UrlCheck {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: "webhook URL is not an absolute URL" };
  }
  const shown = redacted(parsed);
  if (parsed.protocol === "http:" && !policy.allowHttp) {
    return { ok: false, reason: `webhook URL ${shown} uses plain http; use https, or set WEBHOOK_ALLOW_HTTP` };
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    return { ok: false, reason: `webhook URL ${shown} is not an https URL` };
  }
  if (parsed.username || parsed.password) {
    return { ok: false, reason: `webhook URL ${shown} carries a user name or password; remove them` };
  }
  const refused = refuseHost(parsed, policy);
  return refused ? { ok: false, reason: refused } : { ok: true, url: parsed };
}

/**
 * Resolves the host of a checked URL once and returns the address to connect to: the first one, and only if no
 * address the name resolves to is of a refused class (loopback, unspecified, private, link-local, metadata,
 * carrier-grade NAT, multicast, broadcast, reserved, or one of those inside IPv6), unless the host name or that
 * address is in `allowHosts`. An address literal is its own answer. `lookup` defaults to the system resolver.
 */
export async function resolveDestination(url: URL, policy: DestinationPolicy, lookup?: Lookup): Promise<Destination> {
  const refused = refuseHost(url, policy);
  if (refused) return { ok: false, reason: refused };
  const host = bare(url.hostname);
  if (isLiteral(url.hostname)) return { ok: true, address: host, family: host.includes(":") ? 6 : 4 };
  let found: readonly { address: string }[];
  try {
    found = await (lookup ?? (await import("../runtime/dns_lookup.ts")).systemLookup)(host);
  } catch (error) {
    const code = (error as { code?: string }).code;
    return { ok: false, reason: `webhook URL ${redacted(url)}: ${host} does not resolve (${code ?? error})` };
  }
  if (found.length === 0) return { ok: false, reason: `webhook URL ${redacted(url)}: ${host} has no address` };
  const allowed = allowSet(policy);
  if (!allowed.has(host)) {
    for (const { address } of found) {
      const what = classifyAddress(address);
      if (what && !allowed.has(canonical(address))) {
        return { ok: false, reason: refusal(url, "resolves to", address, what) };
      }
    }
  }
  const address = found[0].address;
  return { ok: true, address, family: address.includes(":") ? 6 : 4 };
}

/** Why the URL's host alone (a literal, or a name that always means a refused class) is refused, if it is. */
function refuseHost(url: URL, policy: DestinationPolicy): string | undefined {
  const host = bare(url.hostname);
  if (allowSet(policy).has(host)) return undefined;
  if (isLiteral(url.hostname)) {
    const what = classifyAddress(host);
    return what && refusal(url, "points at", host, what);
  }
  if (host === "localhost" || host.endsWith(".localhost")) return refusal(url, "names", host, "a loopback address");
  if (host === "metadata.google.internal") return refusal(url, "names", host, "a cloud metadata address");
  return undefined;
}

function refusal(url: URL, verb: string, what: string, kind: AddressClass): string {
  const fix = kind === "not an IP address" ? "" : `; ${ALLOW_HOSTS}`;
  return `webhook URL ${redacted(url)} ${verb} ${what}, ${kind}${fix}`;
}

/** The URL parser has already turned every IPv4 spelling (`2130706433`, `0x7f.1`) into a dotted quad. */
function isLiteral(hostname: string): boolean {
  return hostname.startsWith("[") || /^\d+\.\d+\.\d+\.\d+$/.test(hostname);
}

/** The hostname without IPv6 brackets or a trailing dot, as names and addresses are compared. */
function bare(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "");
}

function allowSet(policy: DestinationPolicy): Set<string> {
  return new Set(policy.allowHosts.map(canonical));
}

/** One spelling per host: lower case, and addresses in the URL parser's normal form (`0:0::1` is `::1`). */
function canonical(host: string): string {
  const text = bare(host.trim().toLowerCase()).replace(/%.*$/, "");
  try {
    return bare(new URL(`http://${text.includes(":") ? `[${text}]` : text}/`).hostname);
  } catch {
    return text;
  }
}

function redacted(url: URL): string {
  if (!url.username && !url.password) return url.href;
  const copy = new URL(url);
  copy.username = copy.password = "";
  return copy.href;
}
