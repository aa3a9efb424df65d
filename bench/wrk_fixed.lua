-- wrk script for the benchmarks whose every request is the same, formatted once in init(): a GET,
-- or with $WRK_BODY a POST of it as JSON; with $WRK_BEARER, an `Authorization: Bearer` header, or with
-- $WRK_AUTHORIZATION a whole `Authorization` value (`Basic …`).
-- The two sides of a ratio that send the same bytes cost the client the same work (auth_bench.ts:
-- the open server ignores the header). done() prints the BENCH line that bench/load.ts reads.
local request_text = nil

function init(args)
  local headers = {}
  local bearer = os.getenv("WRK_BEARER")
  if bearer then headers["Authorization"] = "Bearer " .. bearer end
  local authorization = os.getenv("WRK_AUTHORIZATION")
  if authorization then headers["Authorization"] = authorization end
  local body = os.getenv("WRK_BODY")
  if body then
    headers["Content-Type"] = "application/json"
    request_text = wrk.format("POST", nil, headers, body)
  else
    request_text = wrk.format("GET", nil, headers)
  end
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
