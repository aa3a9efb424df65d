-- wrk script for bench/a2a_bench.ts: every request is the same POST of $WRK_BODY as JSON,
-- formatted once in init(), so the client does no more per request than for a GET.
-- done() prints the BENCH line that bench/load.ts reads.
local request_text = nil

function init(args)
  request_text = wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, os.getenv("WRK_BODY") or "{}")
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
