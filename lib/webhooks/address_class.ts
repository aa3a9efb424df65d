/**
 * What kind of IP address a webhook would reach: the special-purpose ranges (RFC 6890 and the IANA registries) that a
 * server must not be made to call on a stranger's behalf, IPv4 addresses hidden inside IPv6 ones included.
 *
 * @module
 */

/** Why an address is refused, worded to follow "a" or "an" in a sentence; `undefined` for a public address. */
export type AddressClass =
  | "a loopback address"
  | "an unspecified address"
  | "a private address"
  | "a link-local address"
  | "a cloud metadata address"
  | "a carrier-grade NAT address"
  | "a multicast address"
  | "a broadcast address"
  | "a reserved address"
  | "not an IP address";

type Range = readonly [prefix: bigint, bits: number, what: AddressClass];

// First match wins: the narrow metadata addresses come before the ranges that hold them.
const V4: readonly Range[] = [
  [v4("169.254.169.254"), 32, "a cloud metadata address"],
  [v4("255.255.255.255"), 32, "a broadcast address"],
  [v4("0.0.0.0"), 8, "an unspecified address"],
  [v4("10.0.0.0"), 8, "a private address"],
  [v4("100.64.0.0"), 10, "a carrier-grade NAT address"],
  [v4("127.0.0.0"), 8, "a loopback address"],
  [v4("169.254.0.0"), 16, "a link-local address"],
  [v4("172.16.0.0"), 12, "a private address"],
  [v4("192.0.0.0"), 24, "a reserved address"], // IETF protocol assignments
  [v4("192.0.2.0"), 24, "a reserved address"], // documentation
  [v4("192.88.99.0"), 24, "a reserved address"], // 6to4 relay anycast
  [v4("192.168.0.0"), 16, "a private address"],
  [v4("198.18.0.0"), 15, "a reserved address"], // benchmarking
  [v4("198.51.100.0"), 24, "a reserved address"],
  [v4("203.0.113.0"), 24, "a reserved address"],
  [v4("224.0.0.0"), 4, "a multicast address"],
  [v4("240.0.0.0"), 4, "a reserved address"],
];

const V6: readonly Range[] = [
  [v6("fd00:ec2::254"), 128, "a cloud metadata address"],
  [0n, 128, "an unspecified address"],
  [1n, 128, "a loopback address"],
  [v6("64:ff9b:1::"), 48, "a private address"], // local-use NAT64
  [v6("100::"), 64, "a reserved address"], // discard-only
  [v6("2001::"), 23, "a reserved address"], // IETF protocol assignments, Teredo among them
  [v6("2001:db8::"), 32, "a reserved address"], // documentation
  [v6("fc00::"), 7, "a private address"],
  [v6("fe80::"), 10, "a link-local address"],
  [v6("fec0::"), 10, "a private address"], // the deprecated site-local range
  [v6("ff00::"), 8, "a multicast address"],
];

/**
 * The class of `address` (IPv4 dotted quad or IPv6, a zone suffix ignored), or `undefined` when it is public.
 * An IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96`) or 6to4 (`2002::/16`)
 * address is judged by the IPv4 address it carries, since that is where a connection to it ends up.
 */
export function classifyAddress(address: string): AddressClass | undefined {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (bare.includes(":")) {
    const n = parseV6(bare);
    return n === undefined ? "not an IP address" : classifyV6(n);
  }
  const n = parseV4(bare);
  return n === undefined ? "not an IP address" : match(V4, n, 32);
}

/** `64:ff9b::/96`, the well-known NAT64 prefix, without its last 32 bits. */
const NAT64 = 0x0064_ff9b_0000_0000_0000_0000n;

function classifyV6(n: bigint): AddressClass | undefined {
  const known = match(V6, n, 128);
  if (known) return known;
  const low32 = Number(n & 0xffff_ffffn);
  if (n >> 32n === 0xffffn || n >> 32n === NAT64) {
    return match(V4, BigInt(low32), 32);
  }
  if (n >> 32n === 0n) return match(V4, BigInt(low32), 32) ?? "a reserved address"; // IPv4-compatible, deprecated
  if (n >> 112n === 0x2002n) return match(V4, (n >> 80n) & 0xffff_ffffn, 32);
  // Only 2000::/3 is global unicast.
  return n >> 125n === 1n ? undefined : "a reserved address";
}

function match(ranges: readonly Range[], n: bigint, width: number): AddressClass | undefined {
  for (const [prefix, bits, what] of ranges) {
    const shift = BigInt(width - bits);
    if (n >> shift === prefix >> shift) return what;
  }
  return undefined;
}

function v4(text: string): bigint {
  return parseV4(text)!;
}

function v6(text: string): bigint {
  return parseV6(text)!;
}

/** Strict dotted quad only: the URL parser has already turned `0x7f.1` and `2130706433` into one. */
function parseV4(text: string): bigint | undefined {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) < 256)) return undefined;
  return parts.reduce((n, p) => (n << 8n) | BigInt(p), 0n);
}

function parseV6(text: string): bigint | undefined {
  const colon = text.lastIndexOf(":");
  if (text.includes(".", colon)) {
    const quad = parseV4(text.slice(colon + 1));
    if (quad === undefined) return undefined;
    text = `${text.slice(0, colon + 1)}${(quad >> 16n).toString(16)}:${(quad & 0xffffn).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const [left, right] = halves.map((half) => (half === "" ? [] : half.split(":")));
  if (right !== undefined && left.length + right.length > 7) return undefined;
  const groups = right === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  if (groups.length !== 8 || !groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return undefined;
  return groups.reduce((n, g) => (n << 16n) | BigInt(`0x${g}`), 0n);
}
