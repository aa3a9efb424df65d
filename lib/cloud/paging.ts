import { StoreCtlError } from "../errors/mod.ts";
import type { CloudClient } from "./client.ts";

/** How a list is read. */
export interface ListOptions {
  /** Stop after this many items; default: all of them. */
  readonly limit?: number;
  /** Items asked for per request. Default 100, the API's usual page size. */
  readonly pageSize?: number;
  readonly signal?: AbortSignal;
}

/**
 * Reads a list the API answers whole (`/tasks`, `/subscriptions`, `/regions`, …: they take no
 * `offset` or `limit`), in one request, and keeps the first `limit` items.
 *
 * @example
 * ```ts
 * import { createCloudClient, readList } from "./mod.ts";
 * const client = createCloudClient({ apiKey: "k", apiSecret: "s", apiUrl: "https://api.example.com/v1" });
 * const regions = await readList(client, "/regions", (body) => (body as { regions: unknown[] }).regions, { limit: 10 });
 * ```
 */
export async function readList<T>(
  client: CloudClient,
  path: string,
  items: (body: unknown) => readonly T[] | undefined,
  options: ListOptions = {},
): Promise<T[]> {
  const all = items(await client.get(path, { signal: options.signal })) ?? [];
  return all.slice(0, options.limit ?? Infinity);
}

/**
 * Reads every page of a paged list (a subscription's databases) through `offset` and `limit`,
 * so callers get the whole list (or the first `limit` items). Each page is read once: a page
 * shorter than asked for, one longer (the server does not page), one that repeats the page before (a server that ignores `offset`), or
 * a 404 for a page after the first (the real API's answer past the end) ends the list. `items`
 * picks the page's entries out of the body, whose shape differs per resource.
 *
 * @example
 * ```ts
 * import { createCloudClient, listAll } from "./mod.ts";
 * const client = createCloudClient({ apiKey: "k", apiSecret: "s", apiUrl: "https://api.example.com/v1" });
 * const dbs = await listAll(client, "/subscriptions/1/databases", (body) => (body as { databases: unknown[] }).databases);
 * ```
 */
export async function listAll<T>(
  client: CloudClient,
  path: string,
  items: (body: unknown) => readonly T[] | undefined,
  options: ListOptions = {},
): Promise<T[]> {
  const pageSize = options.pageSize ?? 100;
  const limit = options.limit ?? Infinity;
  const all: T[] = [];
  let previous: string | undefined;
  while (all.length < limit) {
    const size = Math.min(pageSize, limit - all.length);
    const query = new URLSearchParams({ offset: String(all.length), limit: String(size) });
    let body: unknown;
    try {
      body = await client.get(path, { query, signal: options.signal });
    } catch (error) {
      if (all.length > 0 && error instanceof StoreCtlError && error.status === 404) break;
      throw error;
    }
    const page = items(body) ?? [];
    const seen = JSON.stringify(page);
    if (seen === previous) break;
    previous = seen;
    // More than asked for: the server does not page, so this is the whole list.
    if (page.length > size) return [...all, ...page].slice(0, limit);
    all.push(...page);
    if (page.length < size) break;
  }
  return all;
}
