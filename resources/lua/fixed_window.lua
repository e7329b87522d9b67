-- fixed_window: one counter per aligned window, key <base>:<window start us>.
-- Mirrors core/limiter/fixed_window.cpp.
local start = idiv(now, window) * window
local key = KEYS[1] .. ':' .. num(start)
local count = tonumber(redis.call('GET', key) or '0')
local untilEnd = start + window - now
local allowed, retry = 0, 0
if count + cost <= limit then
  count = tonumber(redis.call('INCRBY', key, cost))
  pexpire(key, untilEnd)
  allowed = 1
else
  retry = untilEnd
end
local reset = 0
if count > 0 then reset = untilEnd end
return {allowed, limit - count, retry, reset, 0, level(count)}
