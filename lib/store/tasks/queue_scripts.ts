/**
 * The work queue scripts for Redis and Upstash: one stream per lane with the consumer group
 * `runners`, named relative to a partition's key prefix (`<keys>queue` for the default lane,
 * `<keys>queue:<lane>` for the others; `<prefix>{t}:` on one Redis; see `layout.ts`).
 *
 * @module
 */

/** Queues a root task. ARGV: prefix, queue, task id, attempt. */
export const PUSH_LUA = `
local q = ARGV[1] .. ARGV[2]
redis.pcall('XGROUP', 'CREATE', q, 'runners', '0', 'MKSTREAM')
return redis.call('XADD', q, '*', 'task', ARGV[3], 'attempt', ARGV[4])
`;

/**
 * Takes a job, the queues tried in order for each kind: one whose lease ran out (XAUTOCLAIM);
 * else, when `check` is 1, one leased to the consumer that it does not hold (a take whose reply
 * it never got); else a new one (XREADGROUP, which never blocks inside a script). ARGV: prefix,
 * consumer, lease ms, queue count n, check, n queues, then the jobs held as "<queue> <id>".
 * Returns {queue, id, 1 reclaimed | 2 retaken | 0 new, fields} or false.
 */
export const TAKE_LUA = `
local n = tonumber(ARGV[4])
local held = {}
for i = 6 + n, #ARGV do held[ARGV[i]] = true end
for i = 6, 5 + n do
  local q = ARGV[1] .. ARGV[i]
  redis.pcall('XGROUP', 'CREATE', q, 'runners', '0', 'MKSTREAM')
  local e = redis.call('XAUTOCLAIM', q, 'runners', ARGV[2], ARGV[3], '0-0', 'COUNT', 1)[2][1]
  if e then return { ARGV[i], e[1], 1, e[2] } end
end
if ARGV[5] == '1' then
  for i = 6, 5 + n do
    local q = ARGV[1] .. ARGV[i]
    -- One more than it holds: if it has any it does not hold, one of them is among these.
    for _, p in ipairs(redis.call('XPENDING', q, 'runners', '-', '+', #ARGV - 4 - n, ARGV[2])) do
      if not held[ARGV[i] .. ' ' .. p[1]] then
        local e = redis.call('XCLAIM', q, 'runners', ARGV[2], 0, p[1])[1]
        if e then return { ARGV[i], e[1], 2, e[2] } end
      end
    end
  end
end
for i = 6, 5 + n do
  local fresh = redis.call('XREADGROUP', 'GROUP', 'runners', ARGV[2], 'COUNT', 1, 'STREAMS', ARGV[1] .. ARGV[i], '>')
  if fresh and fresh[1][2][1] then
    local e = fresh[1][2][1]
    return { ARGV[i], e[1], 0, e[2] }
  end
end
return false
`;

/** Renews a lease (resets the entry's idle time). ARGV: prefix, queue, consumer, job id. */
export const RENEW_LUA = `return redis.call('XCLAIM', ARGV[1] .. ARGV[2], 'runners', ARGV[3], 0, ARGV[4], 'JUSTID')`;

/** Finishes a job. ARGV: prefix, queue, job id. */
export const ACK_LUA = `
redis.call('XACK', ARGV[1] .. ARGV[2], 'runners', ARGV[3])
return redis.call('XDEL', ARGV[1] .. ARGV[2], ARGV[3])
`;

/** Hands a job back: an idle time far past any lease makes the next take reclaim it. ARGV: prefix, queue, consumer, job id. */
export const RELEASE_LUA = `
return redis.call('XCLAIM', ARGV[1] .. ARGV[2], 'runners', ARGV[3], 0, ARGV[4], 'IDLE', 100000000000, 'JUSTID')
`;

/**
 * Finishes a job and queues the task's next attempt in the same queue, atomically; a repeat
 * (the job is gone already) queues nothing. ARGV: prefix, queue, job id, task id, attempt.
 */
export const REQUEUE_LUA = `
local q = ARGV[1] .. ARGV[2]
redis.call('XACK', q, 'runners', ARGV[3])
if redis.call('XDEL', q, ARGV[3]) == 0 then return false end
return redis.call('XADD', q, '*', 'task', ARGV[4], 'attempt', ARGV[5])
`;

/**
 * What waits in each queue: the entries no runner has taken (the stream's length less those
 * leased), and the id of the oldest of them (the first after the group's last delivered one), or
 * ''. ARGV: prefix, then the queues. Returns {waiting, oldest id or ''} per queue, flat.
 */
export const BACKLOG_LUA = `
local out = {}
for i = 2, #ARGV do
  local q = ARGV[1] .. ARGV[i]
  local waiting, oldest = 0, ''
  if redis.call('EXISTS', q) == 1 then
    local last, leased = '0-0', 0
    for _, g in ipairs(redis.call('XINFO', 'GROUPS', q)) do
      local f = {}
      for k = 1, #g, 2 do f[g[k]] = g[k + 1] end
      if f['name'] == 'runners' then last, leased = f['last-delivered-id'], f['pending'] end
    end
    waiting = redis.call('XLEN', q) - leased
    local next = redis.call('XRANGE', q, '(' .. last, '+', 'COUNT', 1)[1]
    if next then oldest = next[1] end
  end
  table.insert(out, waiting)
  table.insert(out, oldest)
end
return out
`;
