import { lookup } from "node:dns/promises";

/**
 * The system resolver (`getaddrinfo`, as Node's and Deno's own connections use it), every address of a name, in the
 * resolver's order. Node's and Deno's `node:dns` both have it; edge runtimes do not, so `destination.ts` loads this
 * file only when no lookup is given.
 */
export function systemLookup(hostname: string): Promise<{ address: string; family: number }[]> {
  return lookup(hostname, { all: true, verbatim: true });
}
