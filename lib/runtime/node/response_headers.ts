import type { HttpResponse } from "../../http/transport.ts";

/**
 * Response headers from Node's `rawHeaders` (`[name, value, name, value, …]`): names match
 * case-insensitively and repeated values are joined with ", ", as `fetch` does. (Node's own
 * `message.headers` keeps only the first of some repeated headers, such as `content-type`.)
 */
export function responseHeaders(rawHeaders: readonly string[]): HttpResponse["headers"] {
  const values = new Map<string, string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    const seen = values.get(name);
    values.set(name, seen === undefined ? rawHeaders[i + 1] : `${seen}, ${rawHeaders[i + 1]}`);
  }
  return { get: (name) => values.get(name.toLowerCase()) ?? null };
}
