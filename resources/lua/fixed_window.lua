-- fixed_window: one counter per aligned window, KEYS[1] = <base>:<window start us>
-- (named by the caller, checked by wrongWindow in the prelude).
-- One GET, and one SET .. PX when admitted (the TTL follows every write: a
-- client clock need not run at the server's pace). Mirrors core/limiter/fixed_window.cpp.
local limit, window, cost = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[5])
local start = idiv(now, window) * window
local miss = wrongWindow(start, window, 1)
if miss then return miss end
local key = KEYS[1]
local count = tonumber(redis.call('GET', key) or 0)
local untilEnd = start + window - now
if count + cost <= limit then
  count = count + cost
  redis.call('SET', key, count, 'PX', math.floor((untilEnd + 999) / 1000))
  return {1, limit - count, 0, untilEnd, 0}
end
local reset = 0
if count > 0 then reset = untilEnd end
return {0, limit - count, untilEnd, reset, 0}
