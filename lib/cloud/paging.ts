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
 * Reads every page of a list through `offset` and `limit`, so callers get the whole list (or
 * the first `limit` items). A page shorter than asked for is the last one; `items` picks the
 * page's entries out of the body, whose shape differs per resource.
 *
 * @example
 * ```ts
 * import { createCloudClient, listAll } from "./mod.ts";
 * import { fetchTransport } from "../http/mod.ts";
 * const client = createCloudClient(
 *   { deployment: "cloud", apiKey: "k", apiSecret: "s", apiUrl: "https://api.example.com/v1", sources: { apiKey: "", apiSecret: "", apiUrl: "" } },
 *   { transport: fetchTransport(fetch), timeoutMs: 30_000 },
 * );
 * const regions = await listAll(client, "/regions", (body) => (body as { regions: unknown[] }).regions, { limit: 10 });
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
  while (all.length < limit) {
    const size = Math.min(pageSize, limit - all.length);
    const query = new URLSearchParams({ offset: String(all.length), limit: String(size) });
    const page = items(await client.get(path, { query, signal: options.signal })) ?? [];
    all.push(...page.slice(0, size));
    if (page.length < size) break;
  }
  return all;
}
