-- sliding_log: one string of admitted timestamps, oldest first, each 16
-- decimal digits and a space (one entry per unit of cost), window
-- (now - W, now]. Fixed-width digits compare as strings in time order.
-- One GET; an admission in time order with no entry out of the window then
-- APPENDs its entries and moves the TTL (PEXPIRE), so the log is not rewritten;
-- any other write SETs the trimmed log with PX (an admission whose clock is
-- behind the log, or entries that left the window). An admission in time
-- order returns one integer, the remaining count (retry 0, reset = the
-- window: core/redis/lua_reply.cpp); every other decision the five fields.
-- Mirrors core/limiter/sliding_log.cpp.
local key = KEYS[1]
local limit, window, cost = ARGV[2] + 0, ARGV[3] + 0, ARGV[5] + 0  -- (+ 0 parses once, tonumber twice)
local log = redis.call('GET', key) or ''
local len = #log
local size = len / 17
if size % 1 ~= 0 then return redis.error_reply('sliding_log key ' .. key .. ' is not a RateLab log of 17-byte entries') end
local sub = string.sub

-- first entry still in the window: usually the oldest (few leave between
-- writes), else gallop from the oldest, then bisect
local cut = now - window
local first = 0
if size > 0 and sub(log, 1, 16) + 0 <= cut then
  local lo, hi, step = 1, size, 2
  while lo < hi do
    local probe = lo + step - 1
    if probe >= hi then probe = hi - 1 end
    if sub(log, probe * 17 + 1, probe * 17 + 16) + 0 > cut then hi = probe break end
    lo = probe + 1
    step = step * 2
  end
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if sub(log, mid * 17 + 1, mid * 17 + 16) + 0 <= cut then lo = mid + 1 else hi = mid end
  end
  first = lo
end
local n = size - first
local lastText = sub(log, len - 16, len - 1)

if n + cost > limit then
  -- the (n + cost - limit)-th oldest live entry must leave: at its time + W
  local o = first + n + cost - limit - 1
  local reset = lastText + window - now
  if first > 0 then redis.call('SET', key, sub(log, first * 17 + 1), 'PX', math.floor((reset + 999) / 1000)) end
  return {0, limit - n, sub(log, o * 17 + 1, o * 17 + 16) + window - now, reset, 0}
end
local entry = ARGV[1]
if #entry ~= 16 then entry = string.format('%016.0f', now) end
local added = cost == 1 and entry .. ' ' or string.rep(entry .. ' ', cost)
if n == 0 or lastText <= entry then  -- in time order: append
  if first == 0 then
    redis.call('APPEND', key, added)
    redis.call('PEXPIRE', key, math.floor((window + 999) / 1000))
  else
    redis.call('SET', key, sub(log, first * 17 + 1) .. added, 'PX', math.floor((window + 999) / 1000))
  end
  return limit - n - cost
end
-- a clock behind the log: insert after the entries <= now, keeping it sorted
local lo, hi = first, size
while lo < hi do
  local mid = math.floor((lo + hi) / 2)
  if sub(log, mid * 17 + 1, mid * 17 + 16) <= entry then lo = mid + 1 else hi = mid end
end
local reset = lastText + window - now
redis.call('SET', key, sub(log, first * 17 + 1, lo * 17) .. added .. sub(log, lo * 17 + 1), 'PX',
           math.floor((reset + 999) / 1000))
return {1, limit - n - cost, 0, reset, 0}
