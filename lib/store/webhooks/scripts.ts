/**
 * The webhook scripts for Redis (and Upstash, which runs the same Lua). Every key of a tenant's
 * webhooks shares the hash tag `{wh}`, so one script may touch several of them on Redis Cluster
 * too; KEYS[1] is `<p>hooks` and ARGV[1] is `<p>` (the prefix ending in `{wh}:`). The keys:
 *
 * - `hook:<id>`: the subscription's JSON; `hooks`, a sorted set of the ids by creation;
 *   `by-task:<id>`, `by-session:<id>` and `tenant`, sets of the ids that want each task's
 *   events, a session's, or all;
 * - `d:<id>`, a hash per delivery: `j` (what was made: JSON), `s` (state), `a` (attempts: a JSON
 *   array), `n` (when it is tried next); `due`, a sorted set of the pending ones by when they
 *   are due, or their lease runs out; `log:<webhook id>`, a sorted set of a subscription's
 *   deliveries by creation (`seq` numbers subscriptions and deliveries in creation order);
 * - `fanout`, the consumer holding the fan-out lease (with `PX`), and `cursor`, the position
 *   reached on the `hooks` event channel.
 *
 * @module
 */

const HEAD = `
local P = ARGV[1]
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

/** ARGV: p, id, json, task id or '', session id or '', max. Returns 1, or 0 when the tenant has max. */
export const ADD_LUA = HEAD + `
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[6]) then return 0 end
redis.call('SET', P .. 'hook:' .. ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[1], redis.call('INCR', P .. 'seq'), ARGV[2])
if ARGV[4] ~= '' then redis.call('SADD', P .. 'by-task:' .. ARGV[4], ARGV[2])
elseif ARGV[5] ~= '' then redis.call('SADD', P .. 'by-session:' .. ARGV[5], ARGV[2])
else redis.call('SADD', P .. 'tenant', ARGV[2]) end
return 1
`;

/** ARGV: p, id. The subscription's JSON, or nil. */
export const GET_LUA = HEAD + `
return redis.call('GET', P .. 'hook:' .. ARGV[2])
`;

/** ARGV: p. The JSON of every subscription, oldest first. */
export const LIST_LUA = HEAD + `
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do out[#out + 1] = redis.call('GET', P .. 'hook:' .. id) end
return out
`;

/** ARGV: p, id, task id or '', session id or ''. Removes it and its deliveries; 1 when it was there. */
export const REMOVE_LUA = HEAD + `
if redis.call('DEL', P .. 'hook:' .. ARGV[2]) == 0 then return 0 end
redis.call('ZREM', KEYS[1], ARGV[2])
redis.call('SREM', P .. 'by-task:' .. ARGV[3], ARGV[2])
redis.call('SREM', P .. 'by-session:' .. ARGV[4], ARGV[2])
redis.call('SREM', P .. 'tenant', ARGV[2])
local log = P .. 'log:' .. ARGV[2]
for _, d in ipairs(redis.call('ZRANGE', log, 0, -1)) do
  redis.call('DEL', P .. 'd:' .. d)
  redis.call('ZREM', P .. 'due', d)
end
redis.call('DEL', log)
return 1
`;

/** ARGV: p, task id, session id. The JSON of the subscriptions that may want the task's events. */
export const MATCHING_LUA = HEAD + `
local ids = redis.call('SUNION', P .. 'by-task:' .. ARGV[2], P .. 'by-session:' .. ARGV[3], P .. 'tenant')
local out = {}
for _, id in ipairs(ids) do
  local json = redis.call('GET', P .. 'hook:' .. id)
  if json then out[#out + 1] = json end
end
return out
`;

/** ARGV: p, consumer, lease ms. The position reached, or -1 when another consumer holds the lease. */
export const CLAIM_FANOUT_LUA = HEAD + `
local holder = redis.call('GET', P .. 'fanout')
if holder and holder ~= ARGV[2] then return -1 end
redis.call('SET', P .. 'fanout', ARGV[2], 'PX', ARGV[3])
return tonumber(redis.call('GET', P .. 'cursor') or '0')
`;

/**
 * ARGV: p, consumer, position, max deliveries per subscription, then per delivery: id, webhook
 * id, JSON. Returns 0 (nothing done) when the consumer does not hold the lease.
 */
export const FANNED_OUT_LUA = HEAD + `
if redis.call('GET', P .. 'fanout') ~= ARGV[2] then return 0 end
local now = now_ms()
for i = 5, #ARGV, 3 do
  local id, hook = ARGV[i], ARGV[i + 1]
  local key = P .. 'd:' .. id
  if redis.call('EXISTS', key) == 0 and redis.call('EXISTS', P .. 'hook:' .. hook) == 1 then
    redis.call('HSET', key, 'j', ARGV[i + 2], 's', 'pending', 'a', '[]', 'n', now)
    redis.call('ZADD', P .. 'due', now, id)
    local log = P .. 'log:' .. hook
    redis.call('ZADD', log, redis.call('INCR', P .. 'seq'), id)
    local over = redis.call('ZCARD', log) - tonumber(ARGV[4])
    if over > 0 then
      for _, old in ipairs(redis.call('ZRANGE', log, 0, over - 1)) do
        redis.call('DEL', P .. 'd:' .. old)
        redis.call('ZREM', P .. 'due', old)
      end
      redis.call('ZREMRANGEBYRANK', log, 0, over - 1)
    end
  end
end
redis.call('SET', P .. 'cursor', ARGV[3])
return 1
`;

/** ARGV: p, now ms, lease ms, max. Per delivery due: j, s, a, n. */
export const TAKE_LUA = HEAD + `
local ids = redis.call('ZRANGEBYSCORE', P .. 'due', '-inf', ARGV[2], 'LIMIT', 0, tonumber(ARGV[4]))
local until_ms = tonumber(ARGV[2]) + tonumber(ARGV[3])
local out = {}
for _, id in ipairs(ids) do
  redis.call('ZADD', P .. 'due', until_ms, id)
  out[#out + 1] = redis.call('HMGET', P .. 'd:' .. id, 'j', 's', 'a', 'n')
end
return out
`;

/**
 * ARGV: p, id, attempt JSON, state (pending, delivered or failed), next ms (pending) or '', max
 * attempts kept. Nothing when the delivery is gone.
 */
export const FINISH_LUA = HEAD + `
local key = P .. 'd:' .. ARGV[2]
local attempts = redis.call('HGET', key, 'a')
if not attempts then return 0 end
local list = cjson.decode(attempts)
list[#list + 1] = cjson.decode(ARGV[3])
while #list > tonumber(ARGV[6]) do table.remove(list, 1) end
redis.call('HSET', key, 'a', cjson.encode(list), 's', ARGV[4])
if ARGV[4] == 'pending' then
  redis.call('HSET', key, 'n', ARGV[5])
  redis.call('ZADD', P .. 'due', ARGV[5], ARGV[2])
else
  redis.call('HDEL', key, 'n')
  redis.call('ZREM', P .. 'due', ARGV[2])
end
return 1
`;

/** ARGV: p, webhook id, max. Per delivery, newest first: j, s, a, n. */
export const DELIVERIES_LUA = HEAD + `
local out = {}
for _, id in ipairs(redis.call('ZREVRANGE', P .. 'log:' .. ARGV[2], 0, tonumber(ARGV[3]) - 1)) do
  out[#out + 1] = redis.call('HMGET', P .. 'd:' .. id, 'j', 's', 'a', 'n')
end
return out
`;

/** ARGV: p, webhook id, delivery id, now ms. 1 when the subscription has it (now pending, due now). */
export const REDELIVER_LUA = HEAD + `
if not redis.call('ZSCORE', P .. 'log:' .. ARGV[2], ARGV[3]) then return 0 end
redis.call('HSET', P .. 'd:' .. ARGV[3], 's', 'pending', 'n', ARGV[4])
redis.call('ZADD', P .. 'due', ARGV[4], ARGV[3])
return 1
`;
