-- wrk script for bench/auth_bench.ts: every request is the same GET with the same
-- `Authorization: Bearer $WRK_BEARER` header, formatted once in init(). Both sides of the ratio
-- (auth on, auth off: the open server ignores the header) send exactly these bytes, so the
-- client's work is equal. done() prints the BENCH line that bench/load.ts reads.
local request_text = nil

function init(args)
  request_text = wrk.format("GET", nil, { ["Authorization"] = "Bearer " .. (os.getenv("WRK_BEARER") or "") })
end

function request()
  return request_text
end

function done(summary, latency)
  local e = summary.errors
  io.write(string.format(
    'BENCH {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d,"non2xx":%d,"errors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.status, e.connect + e.read + e.write + e.timeout))
end
