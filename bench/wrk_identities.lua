-- wrk script for bench/ratelimit_bench.ts. Every request carries a Basic identity from a pool
-- of WRK_IDENTITIES (default 20,000) per thread, each seen a few times per run: repeat callers,
-- yet nearly all requests pass the rate limit, so the benchmark measures the limiter's cost
-- rather than 429s. The plain baselines are driven by this same script, so the client's work
-- is equal on both sides of a ratio.
--
-- The requests are formatted once in init(): per request, wrk only picks the next string (the
-- old script base64-encoded in Lua on every request and used more CPU than the server).
-- WRK_TAG (a fresh value per run) keeps runs and threads apart, so no identity carries a count
-- over from an earlier run.
--
-- With WRK_REPEAT=n, each identity sends n requests in a row before the next one takes over
-- (bench/ratelimit_frameworks_bench.ts: 20 against a limit of 10, so half the answers are 429
-- whatever the throughput).
--
-- With WRK_THREAD_RATE (requests/s per wrk thread), each thread sends on a fixed schedule: the next free connection takes the next slot, and a connection whose slot has
-- passed sends at once. Latency is measured from the send, as wrk does.
--
-- done() prints one line: BENCH <json> with requests, duration, p50/p99 latency and errors.
local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } h5_timespec;
  int clock_gettime(int clock, h5_timespec *ts);
]]

local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("thread_index", counter)
end

local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

local function base64(data)
  local out = {}
  for i = 1, #data, 3 do
    local a, b, c = data:byte(i, i + 2)
    local n = a * 65536 + (b or 0) * 256 + (c or 0)
    local s1 = math.floor(n / 262144) % 64
    local s2 = math.floor(n / 4096) % 64
    local s3 = math.floor(n / 64) % 64
    local s4 = n % 64
    out[#out + 1] = alphabet:sub(s1 + 1, s1 + 1) .. alphabet:sub(s2 + 1, s2 + 1) ..
        (b and alphabet:sub(s3 + 1, s3 + 1) or "=") .. (c and alphabet:sub(s4 + 1, s4 + 1) or "=")
  end
  return table.concat(out)
end

local requests = {}
local size = 0
local next_index = 0
local repeat_count = tonumber(os.getenv("WRK_REPEAT") or "1")
local repeated = 0
local rate = tonumber(os.getenv("WRK_THREAD_RATE") or "")
local interval_ms = rate and 1000 / rate
local next_slot = nil
local ts = ffi.new("h5_timespec")

local function now_ms()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end

function init(args)
  local tag = (os.getenv("WRK_TAG") or tostring(os.time())) .. "-" .. thread_index
  math.randomseed(os.time() + thread_index * 7919 + #tag)
  size = tonumber(os.getenv("WRK_IDENTITIES") or "20000")
  for i = 1, size do
    local auth = "Basic " .. base64("user-" .. tag .. "-" .. i .. ":secret")
    requests[i] = wrk.format("GET", nil, { ["Authorization"] = auth })
  end
  next_index = math.random(1, size)
end

function request()
  repeated = repeated + 1
  if repeated >= repeat_count then
    repeated = 0
    next_index = next_index % size + 1
  end
  return requests[next_index]
end

-- Defined only when pacing: with a delay() wrk sets a timer before every request.
if interval_ms then
  function delay()
    local now = now_ms()
    if not next_slot then next_slot = now + math.random() * interval_ms end
    local wait = next_slot - now
    next_slot = next_slot + interval_ms
    if wait <= 0 then return 0 end
    return wait
  end
end

function done(summary, latency)
  local e = summary.errors
  io.write(string.format(
    'BENCH {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d,"non2xx":%d,"errors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.status, e.connect + e.read + e.write + e.timeout))
end
