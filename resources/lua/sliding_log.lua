-- sliding_log: one string of admitted timestamps, oldest first, each 16
-- decimal digits and a space (one entry per unit of cost), window
-- (now - W, now]. One GET, and one SET .. PX of the trimmed log when admitted
-- or when entries left the window. The log is rewritten per write, so that
-- costs a memcpy of 17 bytes per entry: cheaper than a ZSET's five calls for
-- the limits people set, dearer past ~10^4 entries per key.
-- Mirrors core/limiter/sliding_log.cpp.
local key = KEYS[1]
local limit, window, cost = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[5])
local log = redis.call('GET', key) or ''
local size = #log / 17
if size % 1 ~= 0 then return redis.error_reply('sliding_log key ' .. key .. ' is not a RateLab log of 17-byte entries') end
local function at(i) return tonumber(string.sub(log, i * 17 + 1, i * 17 + 16)) end

-- first entry still in the window: gallop from the oldest (few have left
-- since the last write), then bisect
local cut = now - window
local lo, hi, step = 0, size, 1
while lo < hi do
  local probe = lo + step - 1
  if probe >= hi then probe = hi - 1 end
  if at(probe) > cut then hi = probe break end
  lo = probe + 1
  step = step * 2
end
while lo < hi do
  local mid = math.floor((lo + hi) / 2)
  if at(mid) <= cut then lo = mid + 1 else hi = mid end
end
local first = lo
local n = size - first
local last = 0
if n > 0 then last = at(size - 1) end

if n + cost > limit then
  -- the (n + cost - limit)-th oldest live entry must leave: at its time + W
  local reset = last + window - now
  if first > 0 then redis.call('SET', key, string.sub(log, first * 17 + 1), 'PX', math.floor((reset + 999) / 1000)) end
  return {0, limit - n, at(first + n + cost - limit - 1) + window - now, reset, 0}
end
local entry = ARGV[1]
if #entry ~= 16 then entry = string.format('%016.0f', now) end
entry = string.rep(entry .. ' ', cost)
if n == 0 or last <= now then
  if first > 0 then log = string.sub(log, first * 17 + 1) end
  log = log .. entry
  last = now
else  -- a clock behind the log: insert after the entries <= now, keeping it sorted
  lo, hi = first, size
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if at(mid) <= now then lo = mid + 1 else hi = mid end
  end
  log = string.sub(log, first * 17 + 1, lo * 17) .. entry .. string.sub(log, lo * 17 + 1)
end
redis.call('SET', key, log, 'PX', math.floor((last + window - now + 999) / 1000))
return {1, limit - n - cost, 0, last + window - now, 0}
