// The caller identity both competitor servers limit by, as the service reads it
// (server/routes/rate_limited.ts basicIdentity): a Basic Authorization header, the decoded
// value before the first ":"; undefined (answered 401) when there is none.
export function basicIdentity(header) {
  const match = header === undefined ? null : /^Basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const identity = colon === -1 ? decoded : decoded.slice(0, colon);
  return identity === "" ? undefined : identity;
}

/** The spec's limit: 10 requests per 30 s per identity. */
export const LIMIT = 10;
export const WINDOW_MS = 30_000;
export const ROUTE = "/api/RateLimited/sliding";
