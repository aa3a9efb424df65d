/**
 * The event log scripts for Redis and Upstash: a channel is the stream `<keys>ev:<channel>`, `<keys>` its
 * partition's or its own slot's key prefix (`layout.ts`; `<prefix>{t}:` on one Redis)
 * with ids `0-<n>`, n its per-channel sequence (see `task_scripts.ts` for the key rules).
 *
 * @module
 */

/**
 * Appends one event and publishes it to the channel's followers (`<prefix>{t}:n:<channel>`,
 * message `<id>\t<kind>\t<data>`, see `follow.ts`). ARGV: prefix, channel, kind, data JSON,
 * max length (0: all), and optionally a time to live in ms after which the channel goes unless
 * another event comes (0 or none: it stays). Returns the stream id.
 */
export const APPEND_LUA = `
local k = ARGV[1] .. 'ev:' .. ARGV[2]
local id
if ARGV[5] ~= '0' then
  id = redis.call('XADD', k, 'MAXLEN', '~', ARGV[5], '0-*', 'k', ARGV[3], 'd', ARGV[4])
else
  id = redis.call('XADD', k, '0-*', 'k', ARGV[3], 'd', ARGV[4])
end
if ARGV[6] and ARGV[6] ~= '0' then redis.call('PEXPIRE', k, ARGV[6]) end
redis.call('PUBLISH', ARGV[1] .. 'n:' .. ARGV[2], id .. '\t' .. ARGV[3] .. '\t' .. ARGV[4])
return id
`;

/** Events after an id. ARGV: prefix, channel, after (n), count. Returns XRANGE's reply. */
export const RANGE_LUA = `
return redis.call('XRANGE', ARGV[1] .. 'ev:' .. ARGV[2], '(0-' .. ARGV[3], '+', 'COUNT', ARGV[4])
`;

/** The channel's last event. ARGV: prefix, channel. Returns XREVRANGE's reply (0 or 1 entry). */
export const LAST_LUA = `return redis.call('XREVRANGE', ARGV[1] .. 'ev:' .. ARGV[2], '+', '-', 'COUNT', 1)`;
