/**
 * The task scripts for Redis (and Upstash, which runs the same Lua); the event and queue
 * scripts are in `event_scripts.ts` and `queue_scripts.ts`, under the same rules. Every key of
 * a script is `<prefix>{<tag>}:…` with the tag of one partition (`layout.ts`: `{t}` on one
 * Redis; on a cluster the partition of the task tree's root, its session's), so each script
 * touches one slot (ARGV[1] is that key prefix; KEYS[1] names a key of the slot). On a cluster
 * the writing scripts run with `RELAY = true` and return `{result, events}`: the events of
 * channels outside that slot (global; another session's), which the caller appends there.
 *
 * Keys: `task:<id>` hash, `task:<id>:updates` list, `task:<id>:children` list (spawn order),
 * `ev:<channel>` stream with ids `0-<n>` (n is the per-channel sequence; each entry is also
 * published on the pub/sub channel `n:<channel>`), the sorted sets `idx:all`, `idx:status:<s>`,
 * `idx:session:<sid>`, `idx:session:<sid>:status:<s>` and, of root tasks only, the same four
 * under `idx:roots:` (`indexName` in `scripted_tasks.ts`), all scored by creation order (`seq`),
 * `events` (how many events the task channels hold), and one work queue stream per lane: `queue`
 * (the default lane), `queue:<lane>` for the others.
 *
 * @module
 */

/**
 * The listing indexes, tree walking, removal and the retention sweep; needs only ARGV[1] (the
 * prefix). Roots that finished more than the retention ago (sorted set `expiry`, scored by when
 * they go) are removed with their tree, at most 50 per call, by the scripts that create and list tasks.
 */
const TREE = `
local TP = ARGV[1]
local function scopes(root)
  if root then return { 'idx:', 'idx:roots:' } end
  return { 'idx:' }
end
-- the indexes that list a task by its status
local function status_indexes(status, session, root)
  local out = {}
  for _, s in ipairs(scopes(root)) do
    out[#out + 1] = TP .. s .. 'status:' .. status
    out[#out + 1] = TP .. s .. 'session:' .. session .. ':status:' .. status
  end
  return out
end
-- every index that lists a task
local function indexes(status, session, root)
  local out = status_indexes(status, session, root)
  for _, s in ipairs(scopes(root)) do
    out[#out + 1] = TP .. s .. 'all'
    out[#out + 1] = TP .. s .. 'session:' .. session
  end
  return out
end
local function tree(id)
  local out, i = { id }, 1
  while i <= #out do
    local kids = redis.call('LRANGE', TP .. 'task:' .. out[i] .. ':children', 0, -1)
    for _, kid in ipairs(kids) do out[#out + 1] = kid end
    i = i + 1
  end
  return out
end
local function remove_tree(id)
  local k = TP .. 'task:' .. id
  if redis.call('EXISTS', k) == 0 then return {} end
  local parent = redis.call('HGET', k, 'parent_id')
  if parent then redis.call('LREM', TP .. 'task:' .. parent .. ':children', 1, id) end
  local ids = tree(id)
  for _, t in ipairs(ids) do
    local tk = TP .. 'task:' .. t
    local h = redis.call('HMGET', tk, 'status', 'session_id', 'parent_id')
    if h[1] then
      for _, idx in ipairs(indexes(h[1], h[2], not h[3])) do redis.call('ZREM', idx, t) end
    end
    redis.call('ZREM', TP .. 'expiry', t)
    local held = redis.call('XLEN', TP .. 'ev:task:' .. t)
    -- the counter goes with the last event it counts: a store with no tasks keeps no key for it
    if held > 0 and redis.call('DECRBY', TP .. 'events', held) <= 0 then redis.call('DEL', TP .. 'events') end
    redis.call('DEL', tk, tk .. ':updates', tk .. ':children', TP .. 'ev:task:' .. t)
  end
  return ids
end
local function sweep()
  local t = redis.call('TIME')
  local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', TP .. 'expiry', '-inf', now_ms, 'LIMIT', 0, 50)) do
    remove_tree(id)
    redis.call('ZREM', TP .. 'expiry', id)
  end
end
`;

/**
 * Helpers shared by the writing scripts: event fan-out and index upkeep. Their ARGV start with
 * prefix, now, the shared channels' cap, the retention in ms, and the shared channels the events
 * also go to ("session,global", either or none).
 */
const PRELUDE = TREE + `
local P = ARGV[1]
local NOW = ARGV[2]
local CAP = tonumber(ARGV[3])
local TTL = tonumber(ARGV[4])
local TO_SESSION = string.find(ARGV[5], 'session', 1, true) ~= nil
local TO_GLOBAL = string.find(ARGV[5], 'global', 1, true) ~= nil
local TO_HOOKS = string.find(ARGV[5], 'hooks', 1, true) ~= nil
local HOOK = { done = true, failed = true, cancelled = true, input_required = true }
local FINAL = { done = true, failed = true, cancelled = true }
local SUB = { spawned = true, done = true, failed = true, input_required = true }
-- On a cluster (RELAY true) the channels outside the tree's slot (global; a session other than the
-- tree's) are not written here: the script returns them, and the caller appends them in their slot.
local RELAY = false
local OUT = {}
local function finish(result)
  if RELAY then return { result, OUT } end
  return result
end
-- stored on the channel's stream, and published to its followers (see follow.ts)
-- A shared channel (cap > 0: session, global) goes the retention after its last event; a task's with its task.
local function emit(channel, kind, data, cap, away)
  local ttl = (cap > 0 and TTL > 0) and TTL or 0
  if RELAY and away then
    OUT[#OUT + 1] = { channel, kind, data, tostring(cap), tostring(ttl) }
    return
  end
  local k = P .. 'ev:' .. channel
  local id
  if cap > 0 then
    id = redis.call('XADD', k, 'MAXLEN', '~', cap, '0-*', 'k', kind, 'd', data)
  else
    id = redis.call('XADD', k, '0-*', 'k', kind, 'd', data)
    redis.call('INCR', P .. 'events')
  end
  if ttl > 0 then redis.call('PEXPIRE', k, ttl) end
  redis.call('PUBLISH', P .. 'n:' .. channel, id .. '\t' .. kind .. '\t' .. data)
end
-- payload is a JSON object text from the caller; the task id goes first
local function with_id(id, payload)
  if payload == '{}' then return '{"task_id":' .. cjson.encode(id) .. '}' end
  return '{"task_id":' .. cjson.encode(id) .. ',' .. string.sub(payload, 2)
end
local function fan_out(id, kind, payload)
  local t = redis.call('HMGET', P .. 'task:' .. id, 'session_id', 'parent_id', 'spawn_key', 'session_away')
  if kind ~= 'spawned' then
    local data = with_id(id, payload)
    emit('task:' .. id, kind, data, 0, false)
    if TO_SESSION then emit('session:' .. t[1], kind, data, CAP, t[4] == '1') end
    if TO_GLOBAL then emit('global', kind, data, CAP, true) end
    if TO_HOOKS and HOOK[kind] then emit('hooks', kind, data, CAP, true) end
  end
  if t[2] and SUB[kind] then
    local sub = '{"subtask_id":' .. cjson.encode(id) .. ',"spawn_key":' .. cjson.encode(t[3] or '')
    if payload == '{}' then sub = sub .. '}' else sub = sub .. ',' .. string.sub(payload, 2) end
    emit('task:' .. t[2], 'subtask_' .. kind, with_id(t[2], sub), 0, false)
  end
end
local function set_status(id, to)
  local k = P .. 'task:' .. id
  local h = redis.call('HMGET', k, 'status', 'seq', 'session_id', 'parent_id')
  if FINAL[to] and TTL > 0 and not h[4] then
    local t = redis.call('TIME')
    redis.call('ZADD', P .. 'expiry', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + TTL, id)
  end
  for _, idx in ipairs(status_indexes(h[1], h[3], not h[4])) do redis.call('ZREM', idx, id) end
  for _, idx in ipairs(status_indexes(to, h[3], not h[4])) do redis.call('ZADD', idx, h[2], id) end
  redis.call('HSET', k, 'status', to, 'updated_at', NOW)
end
`;

/**
 * Creates a task. ARGV: prefix, now, cap, retention ms (0: keep), shared channels, id, kind, session_id, metadata JSON, input JSON,
 * parent id or '', spawn key or '', '1' on a cluster (the creation sequence is then a clock reading) or '', '1' when the task's
 * session lives in another partition than its tree (its session events are relayed) or '', the work queue to
 * queue it in (as `PUSH_LUA` does) or '', its traceparent or '', its tracestate or ''. Returns 1, or 0 when the id exists or the parent does not.
 */
export const CREATE_LUA = PRELUDE + `
sweep()
local id, session, parent = ARGV[6], ARGV[8], ARGV[11]
local k = P .. 'task:' .. id
if redis.call('EXISTS', k) == 1 then return finish(0) end
if parent ~= '' and redis.call('EXISTS', P .. 'task:' .. parent) == 0 then return finish(0) end
local seq
if ARGV[13] == '' then
  seq = redis.call('INCR', P .. 'seq')
else
  -- A cluster's partition: the master's clock in µs (above the partition's last), so that listings merge the
  -- partitions in creation order with no counter of their own (ties between partitions go by partition).
  local t = redis.call('TIME')
  local at = tonumber(t[1]) * 1000000 + tonumber(t[2])
  seq = string.format('%.0f', math.max(at, tonumber(redis.call('GET', P .. 'seq') or '0') + 1))
  redis.call('SET', P .. 'seq', seq)
end
redis.call('HSET', k, 'task_id', id, 'kind', ARGV[7], 'session_id', session, 'status', 'in_progress',
  'metadata', ARGV[9], 'input', ARGV[10], 'created_at', NOW, 'updated_at', NOW, 'seq', seq)
if parent ~= '' then
  redis.call('HSET', k, 'parent_id', parent, 'spawn_key', ARGV[12])
  redis.call('RPUSH', P .. 'task:' .. parent .. ':children', id)
end
if ARGV[14] == '1' then redis.call('HSET', k, 'session_away', '1') end
if ARGV[16] ~= '' then redis.call('HSET', k, 'traceparent', ARGV[16]) end
if ARGV[17] ~= '' then redis.call('HSET', k, 'tracestate', ARGV[17]) end
if ARGV[15] ~= '' then
  redis.pcall('XGROUP', 'CREATE', P .. ARGV[15], 'runners', '0', 'MKSTREAM')
  redis.call('XADD', P .. ARGV[15], '*', 'task', id, 'attempt', '1')
end
for _, idx in ipairs(indexes('in_progress', session, parent == '')) do redis.call('ZADD', idx, seq, id) end
fan_out(id, 'spawned', '{}')
return finish(1)
`;

/**
 * One step. ARGV: prefix, now, cap, retention ms (0: keep), shared channels, id, to or '', allowed from (comma list) or '', field
 * count n, then n field/value pairs (an empty value deletes the field), update JSON or '',
 * event kind or '', event payload JSON, step run or '', step number. Returns {1} or {0, current status or ''}.
 * A step with a run is applied once: the hash keeps the last applied run and number
 * (`step_run`, `step_n`), and a repeat of it (same run, number not above) answers {1} unchanged.
 */
export const STEP_LUA = PRELUDE + `
local id, to, from = ARGV[6], ARGV[7], ARGV[8]
local k = P .. 'task:' .. id
local status = redis.call('HGET', k, 'status')
if not status then return finish({0, ''}) end
local n = tonumber(ARGV[9])
local rest = 10 + 2 * n
local run, step_n = ARGV[rest + 3], tonumber(ARGV[rest + 4])
if run ~= '' then
  local last = redis.call('HMGET', k, 'step_run', 'step_n')
  if last[1] == run and tonumber(last[2]) >= step_n then return finish({1}) end
end
if FINAL[status] then return finish({0, status}) end
if from ~= '' and not string.find(',' .. from .. ',', ',' .. status .. ',', 1, true) then return finish({0, status}) end
if to ~= '' then set_status(id, to) else redis.call('HSET', k, 'updated_at', NOW) end
for i = 0, n - 1 do
  local f, v = ARGV[10 + 2 * i], ARGV[11 + 2 * i]
  if v == '' then redis.call('HDEL', k, f) else redis.call('HSET', k, f, v) end
end
if run ~= '' then redis.call('HSET', k, 'step_run', run, 'step_n', step_n) end
if ARGV[rest] ~= '' then redis.call('RPUSH', k .. ':updates', ARGV[rest]) end
if ARGV[rest + 1] ~= '' then fan_out(id, ARGV[rest + 1], ARGV[rest + 2]) end
return finish({1})
`;

/** Cancels. ARGV: prefix, now, cap, retention ms (0: keep), shared channels, id, '1' to cascade. Returns {found, moved ids…}. */
export const CANCEL_LUA = PRELUDE + `
local id = ARGV[6]
if redis.call('EXISTS', P .. 'task:' .. id) == 0 then return finish({0}) end
local ids = { id }
if ARGV[7] == '1' then ids = tree(id) end
local out = { 1 }
for _, t in ipairs(ids) do
  local status = redis.call('HGET', P .. 'task:' .. t, 'status')
  if status and not FINAL[status] then
    set_status(t, 'cancelled')
    fan_out(t, 'cancelled', '{}')
    out[#out + 1] = t
  end
end
return finish(out)
`;

/** Removes a task tree. ARGV: prefix, now, cap, retention ms (0: keep), shared channels, id. Returns the removed ids. */
export const REMOVE_LUA = PRELUDE + `
return finish(remove_tree(ARGV[6]))
`;

/** Whether a task is in this partition. ARGV: prefix, id. Returns 1 or 0. */
export const EXISTS_LUA = `return redis.call('EXISTS', ARGV[1] .. 'task:' .. ARGV[2])`;

/**
 * What the partition holds, after a retention sweep. ARGV: prefix. Returns {live, stored, events}
 * (events 0 at least: a counter that began after events were stored can fall below).
 */
export const USAGE_LUA = TREE + `
sweep()
local P = ARGV[1]
local live = redis.call('ZCARD', P .. 'idx:status:in_progress') + redis.call('ZCARD', P .. 'idx:status:input_required')
local events = math.max(0, tonumber(redis.call('GET', P .. 'events') or '0'))
return { live, redis.call('ZCARD', P .. 'idx:all'), events }
`;

/** Reads a task. ARGV: prefix, id. Returns {hash fields…, {updates…}} or {}. */
export const GET_LUA = `
local k = ARGV[1] .. 'task:' .. ARGV[2]
local h = redis.call('HGETALL', k)
if #h == 0 then return {} end
return { h, redis.call('LRANGE', k .. ':updates', 0, -1) }
`;

/**
 * A page. ARGV: prefix, index name, 'asc' or 'desc', the bound: '(<seq>' (after it), '<seq>' (from it) or '' (from the
 * start), limit.
 * Returns {total, hash, children, hash, children, …} (children: how many direct children the
 * task has) with one more task than `limit` when there is a next page.
 */
export const LIST_LUA = TREE + `
sweep()
local idx, cursor, limit = ARGV[1] .. ARGV[2], ARGV[4], tonumber(ARGV[5]) + 1
local ids
if ARGV[3] == 'desc' then
  ids = redis.call('ZREVRANGEBYSCORE', idx, cursor == '' and '+inf' or cursor, '-inf', 'LIMIT', 0, limit)
else
  ids = redis.call('ZRANGEBYSCORE', idx, cursor == '' and '-inf' or cursor, '+inf', 'LIMIT', 0, limit)
end
local out = { redis.call('ZCARD', idx) }
for _, id in ipairs(ids) do
  local k = ARGV[1] .. 'task:' .. id
  out[#out + 1] = redis.call('HGETALL', k)
  out[#out + 1] = redis.call('LLEN', k .. ':children')
end
return out
`;

/** Direct children. ARGV: prefix, id. Returns their hashes in spawn order. */
export const CHILDREN_LUA = `
local out = {}
for _, id in ipairs(redis.call('LRANGE', ARGV[1] .. 'task:' .. ARGV[2] .. ':children', 0, -1)) do
  local h = redis.call('HGETALL', ARGV[1] .. 'task:' .. id)
  if #h > 0 then out[#out + 1] = h end
end
return out
`;
