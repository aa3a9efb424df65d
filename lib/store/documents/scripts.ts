/**
 * The document scripts for Redis (and Upstash, which runs the same Lua). Every key is
 * `<prefix>{d}:…`: the `{d}` hash tag puts them in one slot, so each script is valid on Redis
 * Cluster (ARGV[1] is that key prefix, ARGV[2] the time; KEYS[1] names a key of the slot).
 *
 * Keys: `docs` hash (id → JSON `{title, source, hash, n, updated_at}`), `chunks` hash
 * (chunk id → text; a chunk id is `<doc id>-<hash[0..8]>-<index>`, so `n` names them all),
 * `staged` hash (source → JSON document), `staged_n` hash (source → chunk count),
 * `staged_order` sorted set, `staged_chunks` and `seq` counters, `status` hash, and the
 * change stream `changes` with ids `0-<seq>` (each entry's `t` is the time it was written).
 *
 * On Redis Cluster the documents and chunks spread by document id over partitions (`{d:<b>.<k>}`,
 * see `tasks/layout.ts`): a partition holds the `docs` and `chunks` hashes of its documents
 * (`PUT_DOCUMENT_LUA`, `COUNT_LUA`, `CLEAR_PARTITION_LUA`); the staging area, the status and the
 * change stream stay in `{d}` (`RECORD_PUT_LUA` after each put).
 *
 * @module
 */

const COMMON = `
local P = ARGV[1]
local function batched(cmd, key, items)
  for i = 1, #items, 500 do
    redis.call(cmd, key, unpack(items, i, math.min(i + 499, #items)))
  end
end
local function unstage(source)
  local n = redis.call('HGET', P .. 'staged_n', source)
  if not n then return end
  redis.call('HDEL', P .. 'staged', source)
  redis.call('HDEL', P .. 'staged_n', source)
  redis.call('ZREM', P .. 'staged_order', source)
  redis.call('DECRBY', P .. 'staged_chunks', n)
end
local function ids(id, hash, n)
  local out, h = {}, string.sub(hash, 1, 8)
  for i = 0, n - 1 do out[#out + 1] = id .. '-' .. h .. '-' .. i end
  return out
end
-- Replaces document id with the chunk texts ARGV[first…]; returns its status, chunks, the chunks
-- removed and the old hash ('' when it is new).
local function put_document(id, title, source, hash, first)
  local raw = redis.call('HGET', P .. 'docs', id)
  local removed, old = 0, nil
  if raw then
    old = cjson.decode(raw)
    if old.source == source and old.hash == hash then return 'unchanged', old.n, 0, '' end
    local gone = ids(id, old.hash, old.n)
    if #gone > 0 then batched('HDEL', P .. 'chunks', gone) end
    removed = old.n
  end
  local n = #ARGV - first + 1
  local pairs_ = {}
  local h = string.sub(hash, 1, 8)
  for i = 0, n - 1 do
    pairs_[#pairs_ + 1] = id .. '-' .. h .. '-' .. i
    pairs_[#pairs_ + 1] = ARGV[first + i]
  end
  if #pairs_ > 0 then batched('HSET', P .. 'chunks', pairs_) end
  redis.call('HSET', P .. 'docs', id, cjson.encode({title = title, source = source, hash = hash, n = n, updated_at = ARGV[2]}))
  if old then return 'replaced', n, removed, old.hash end
  return 'added', n, 0, ''
end
`;

/**
 * Replaces a document with its chunks. ARGV: prefix, now, id, title, source, hash, unstage
 * (0|1), chunk texts… Returns {status, chunks, removed}.
 */
export const PUT_LUA = COMMON + `
local id = ARGV[3]
if ARGV[7] == '1' then unstage(ARGV[5]) end
local status, n, removed, old_hash = put_document(id, ARGV[4], ARGV[5], ARGV[6], 8)
if status == 'unchanged' then return {status, n, 0} end
local seq = redis.call('INCR', P .. 'seq')
redis.call('XADD', P .. 'changes', '0-' .. seq, 'op', 'put', 'd', id, 'h', old_hash, 'n', removed, 't', ARGV[2])
return {status, n, removed}
`;

/** Documents by id. ARGV: prefix, now, ids… Returns HMGET's reply. */
export const DOCUMENTS_LUA = `
if #ARGV < 3 then return {} end
return redis.call('HMGET', ARGV[1] .. 'docs', unpack(ARGV, 3))
`;

/** Chunk texts by id. ARGV: prefix, now, ids… Returns HMGET's reply. */
export const CHUNKS_LUA = `
if #ARGV < 3 then return {} end
return redis.call('HMGET', ARGV[1] .. 'chunks', unpack(ARGV, 3))
`;

/** Stages documents. ARGV: prefix, now, then per document: source, chunk count, JSON. Returns the staged chunk total. */
export const STAGE_LUA = COMMON + `
for i = 3, #ARGV, 3 do
  local source = ARGV[i]
  unstage(source)
  redis.call('HSET', P .. 'staged', source, ARGV[i + 2])
  redis.call('HSET', P .. 'staged_n', source, ARGV[i + 1])
  redis.call('ZADD', P .. 'staged_order', redis.call('INCR', P .. 'staged_seq'), source)
  redis.call('INCRBY', P .. 'staged_chunks', ARGV[i + 1])
end
return tonumber(redis.call('GET', P .. 'staged_chunks') or '0')
`;

/** Staged documents, oldest first. ARGV: prefix, now, limit. Returns their JSON texts. */
export const STAGED_LUA = `
local P = ARGV[1]
local sources = redis.call('ZRANGE', P .. 'staged_order', 0, tonumber(ARGV[3]) - 1)
if #sources == 0 then return {} end
return redis.call('HMGET', P .. 'staged', unpack(sources))
`;

/** ARGV: prefix, now. Returns {chunks, documents, staged_chunks, state, last_task_id, updated_at}. */
export const STATUS_LUA = `
local P = ARGV[1]
local s = redis.call('HMGET', P .. 'status', 'state', 'last_task_id', 'updated_at')
return {redis.call('HLEN', P .. 'chunks'), redis.call('HLEN', P .. 'docs'),
  tonumber(redis.call('GET', P .. 'staged_chunks') or '0'), s[1] or 'idle', s[2] or '', s[3] or ''}
`;

/** ARGV: prefix, now, state, task id. */
export const SET_STATE_LUA = `
redis.call('HSET', ARGV[1] .. 'status', 'state', ARGV[3], 'last_task_id', ARGV[4], 'updated_at', ARGV[2])
return 1
`;

/** Removes everything and restarts the change stream with `clear`. ARGV: prefix, now. Returns the chunks removed. */
export const CLEAR_LUA = `
local P = ARGV[1]
local n = redis.call('HLEN', P .. 'chunks')
redis.call('DEL', P .. 'docs', P .. 'chunks', P .. 'staged', P .. 'staged_n', P .. 'staged_order',
  P .. 'staged_chunks', P .. 'changes')
redis.call('HSET', P .. 'status', 'updated_at', ARGV[2])
local seq = redis.call('INCR', P .. 'seq')
redis.call('XADD', P .. 'changes', '0-' .. seq, 'op', 'clear', 't', ARGV[2])
return n
`;

/** Changes after a sequence id. ARGV: prefix, now, after, count. Returns XRANGE's reply. */
export const CHANGES_LUA = `
return redis.call('XRANGE', ARGV[1] .. 'changes', '(0-' .. ARGV[3], '+', 'COUNT', ARGV[4])
`;

/**
 * A cluster's put, in the document's partition: PUT_LUA without the staging area and the change
 * stream. ARGV: prefix, now, id, title, source, hash, chunk texts… Returns {status, chunks,
 * removed, old hash or ''}.
 */
export const PUT_DOCUMENT_LUA = COMMON + `
local status, n, removed, old_hash = put_document(ARGV[3], ARGV[4], ARGV[5], ARGV[6], 7)
return {status, n, removed, old_hash}
`;

/**
 * A cluster's put, its part in `{d}`: unstages the source (when asked) and, unless the put
 * changed nothing, appends the change. ARGV: prefix, now, unstage (0|1), source, changed (0|1),
 * id, old hash or '', chunks removed.
 */
export const RECORD_PUT_LUA = COMMON + `
if ARGV[3] == '1' then unstage(ARGV[4]) end
if ARGV[5] ~= '1' then return 0 end
local seq = redis.call('INCR', P .. 'seq')
redis.call('XADD', P .. 'changes', '0-' .. seq, 'op', 'put', 'd', ARGV[6], 'h', ARGV[7], 'n', ARGV[8], 't', ARGV[2])
return seq
`;

/** A partition's counts. ARGV: prefix, now. Returns {chunks, documents}. */
export const COUNT_LUA = `return {redis.call('HLEN', ARGV[1] .. 'chunks'), redis.call('HLEN', ARGV[1] .. 'docs')}`;

/** Empties a partition. ARGV: prefix, now. Returns the chunks removed. */
export const CLEAR_PARTITION_LUA = `
local n = redis.call('HLEN', ARGV[1] .. 'chunks')
redis.call('DEL', ARGV[1] .. 'docs', ARGV[1] .. 'chunks')
return n
`;
