-- sliding_log: one string of admitted timestamps, oldest first, each 16
-- decimal digits and a space (one entry per unit of cost), window
-- (now - W, now]. One GET, and one SET .. PX of the trimmed log when admitted
-- or when entries left the window. The log is rewritten per write: a memcpy
-- of 17 bytes per entry, cheaper than a ZSET's five calls for the limits
-- people set, dearer past ~10^4 entries per key. Fixed-width digits compare
-- as strings in time order. Mirrors core/limiter/sliding_log.cpp.
local key = KEYS[1]
local limit, window, cost = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[5])
local log = redis.call('GET', key) or ''
local len = #log
local size = len / 17
if size % 1 ~= 0 then return redis.error_reply('sliding_log key ' .. key .. ' is not a RateLab log of 17-byte entries') end
local sub = string.sub

-- first entry still in the window: usually the oldest (few leave between
-- writes), else gallop from the oldest, then bisect
local cut = now - window
local first = 0
if size > 0 and tonumber(sub(log, 1, 16)) <= cut then
  local lo, hi, step = 1, size, 2
  while lo < hi do
    local probe = lo + step - 1
    if probe >= hi then probe = hi - 1 end
    if tonumber(sub(log, probe * 17 + 1, probe * 17 + 16)) > cut then hi = probe break end
    lo = probe + 1
    step = step * 2
  end
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if tonumber(sub(log, mid * 17 + 1, mid * 17 + 16)) <= cut then lo = mid + 1 else hi = mid end
  end
  first = lo
end
local n = size - first
local lastText = sub(log, len - 16, len - 1)

if n + cost > limit then
  -- the (n + cost - limit)-th oldest live entry must leave: at its time + W
  local o = first + n + cost - limit - 1
  local reset = tonumber(lastText) + window - now
  if first > 0 then redis.call('SET', key, sub(log, first * 17 + 1), 'PX', math.floor((reset + 999) / 1000)) end
  return {0, limit - n, tonumber(sub(log, o * 17 + 1, o * 17 + 16)) + window - now, reset, 0}
end
local entry = ARGV[1]
if #entry ~= 16 then entry = string.format('%016.0f', now) end
local reset = window
if n == 0 or lastText <= entry then  -- in time order: append
  if first > 0 then log = sub(log, first * 17 + 1) end
  if cost == 1 then log = log .. entry .. ' ' else log = log .. string.rep(entry .. ' ', cost) end
else  -- a clock behind the log: insert after the entries <= now, keeping it sorted
  local lo, hi = first, size
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if sub(log, mid * 17 + 1, mid * 17 + 16) <= entry then lo = mid + 1 else hi = mid end
  end
  log = sub(log, first * 17 + 1, lo * 17) .. string.rep(entry .. ' ', cost) .. sub(log, lo * 17 + 1)
  reset = tonumber(lastText) + window - now
end
redis.call('SET', key, log, 'PX', math.floor((reset + 999) / 1000))
return {1, limit - n - cost, 0, reset, 0}
