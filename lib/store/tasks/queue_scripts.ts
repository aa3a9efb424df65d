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
 * Takes up to `room` jobs of each queue, `total` in all: those whose lease ran out
 * (XAUTOCLAIM); then, when `check` is 1, those leased to the consumer that it does not hold
 * (takes whose replies it never got); then new ones (XREADGROUP, which never blocks inside a
 * script) — each kind queue by queue in the order given. ARGV: prefix, consumer, lease ms, queue
 * count n, check, total, n queues, n rooms, then the jobs held as "<queue> <id>". Returns
 * {queue, id, 1 reclaimed | 2 retaken | 0 new, fields} per job.
 */
export const TAKE_LUA = `
local n, left = tonumber(ARGV[4]), tonumber(ARGV[6])
local held, holds = {}, 0
for i = 7 + 2 * n, #ARGV do held[ARGV[i]] = true; holds = holds + 1 end
local room, out = {}, {}
for i = 1, n do room[i] = tonumber(ARGV[6 + n + i]) end
local function want(i) return math.min(room[i], left) end
local function add(i, e, how)
  if not e then return end -- an entry deleted while leased
  table.insert(out, { ARGV[6 + i], e[1], how, e[2] })
  room[i], left = room[i] - 1, left - 1
  held[ARGV[6 + i] .. ' ' .. e[1]] = true -- not "lost" below
  holds = holds + 1
end
for i = 1, n do
  local q = ARGV[1] .. ARGV[6 + i]
  redis.pcall('XGROUP', 'CREATE', q, 'runners', '0', 'MKSTREAM')
  if want(i) > 0 then
    for _, e in ipairs(redis.call('XAUTOCLAIM', q, 'runners', ARGV[2], ARGV[3], '0-0', 'COUNT', want(i))[2]) do add(i, e, 1) end
  end
end
if ARGV[5] == '1' then
  for i = 1, n do
    -- As many more than it holds as it may take: those it does not hold are among these.
    if want(i) > 0 then
      local q = ARGV[1] .. ARGV[6 + i]
      for _, p in ipairs(redis.call('XPENDING', q, 'runners', '-', '+', holds + want(i), ARGV[2])) do
        if want(i) > 0 and not held[ARGV[6 + i] .. ' ' .. p[1]] then
          add(i, redis.call('XCLAIM', q, 'runners', ARGV[2], 0, p[1])[1], 2)
        end
      end
    end
  end
end
for i = 1, n do
  if want(i) > 0 then
    local q = ARGV[1] .. ARGV[6 + i]
    local fresh = redis.call('XREADGROUP', 'GROUP', 'runners', ARGV[2], 'COUNT', want(i), 'STREAMS', q, '>')
    if fresh then
      for _, e in ipairs(fresh[1][2]) do add(i, e, 0) end
    end
  end
end
return out
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
