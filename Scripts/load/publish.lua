-- wrk script: POST /v1/publish with 14 new random keys (one per day of the last 14 days, as a phone uploads
-- them) per request, as Google's publish API wants them; prints one JSON line of results at the end.
--   wrk -t1 -c8 -d20s -s Scripts/load/publish.lua http://127.0.0.1:8080
local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

local function base64(bytes)
  local out = {}
  for i = 1, #bytes, 3 do
    local a, b, c = bytes:byte(i, i + 2)
    local n = a * 65536 + (b or 0) * 256 + (c or 0)
    local chars = {}
    for j = 3, 0, -1 do
      local index = math.floor(n / 64 ^ j) % 64 + 1
      chars[#chars + 1] = alphabet:sub(index, index)
    end
    if not b then chars[3] = "=" end
    if not c then chars[4] = "=" end
    out[#out + 1] = table.concat(chars)
  end
  return table.concat(out)
end

local function randomKey()
  local bytes = {}
  for i = 1, 16 do bytes[i] = string.char(math.random(0, 255)) end
  return base64(table.concat(bytes))
end

local threads = {}
function setup(thread)
  thread:set("seed", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  -- A different stream per thread and per run (the clock's microseconds).
  local now = io.popen("date +%s%N"):read("*l")
  math.randomseed(tonumber(now:sub(-9)) + seed * 7919)
end

request = function()
  local today = math.floor(os.time() / 600 / 144) * 144
  local keys = {}
  for day = 1, 14 do
    keys[day] = string.format(
      '{"key":"%s","rollingStartNumber":%d,"rollingPeriod":144,"transmissionRisk":3}', randomKey(), today - 144 * day)
  end
  local body = '{"temporaryExposureKeys":[' .. table.concat(keys, ",") .. '],"healthAuthorityID":"load.test"}'
  return wrk.format("POST", "/v1/publish", { ["Content-Type"] = "application/json" }, body)
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  io.write(string.format(
    '{"requests": %d, "seconds": %.2f, "rps": %.1f, "p50_ms": %.2f, "p99_ms": %.2f, "max_ms": %.2f, ' ..
    '"non2xx": %d, "socket_errors": %d}\n',
    summary.requests, seconds, summary.requests / seconds, latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
