/**
 * The idempotency scripts for Redis (and Upstash, which runs the same Lua). Each touches one key,
 * KEYS[1] = `<prefix>idem:<key>`, a string: the fingerprint, then a space and the task id once
 * the task exists; it expires with `PX`.
 *
 * @module
 */

/** ARGV: fingerprint, ttl ms. Returns '' when it took the key, else what the key holds. */
export const CLAIM_LUA = `
local held = redis.call('GET', KEYS[1])
if held then return held end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return ''
`;

/** ARGV: fingerprint, task id, ttl ms. Returns 1 when it recorded the task. */
export const COMPLETE_LUA = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. ARGV[2], 'PX', ARGV[3])
return 1
`;

/** ARGV: fingerprint. Deletes the key when that fingerprint holds it. */
export const RELEASE_LUA = `
local held = redis.call('GET', KEYS[1])
if held and (held == ARGV[1] or string.sub(held, 1, #ARGV[1] + 1) == ARGV[1] .. ' ') then
  redis.call('DEL', KEYS[1])
end
return 0
`;
