-- Spreads requests over 20,000 Basic identities per wrk thread, each seen a few times per
-- window: repeat callers, as in real traffic, yet nearly all requests pass the rate limit, so
-- the benchmark measures the limiter's cost rather than 429s.
local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

local function base64(data)
  return ((data:gsub(".", function(x)
    local r, b = "", x:byte()
    for i = 8, 1, -1 do r = r .. (b % 2 ^ i - b % 2 ^ (i - 1) > 0 and "1" or "0") end
    return r
  end) .. "0000"):gsub("%d%d%d?%d?%d?%d?", function(x)
    if #x < 6 then return "" end
    local c = 0
    for i = 1, 6 do c = c + (x:sub(i, i) == "1" and 2 ^ (6 - i) or 0) end
    return alphabet:sub(c + 1, c + 1)
  end) .. ({ "", "==", "=" })[#data % 3 + 1])
end

local counter = 0
local thread_tag = tostring(math.random(1, 1000000000))

request = function()
  counter = counter % 20000 + 1
  local auth = "Basic " .. base64("user-" .. thread_tag .. "-" .. counter .. ":secret")
  return wrk.format("GET", nil, { ["Authorization"] = auth })
end
