-- fixed_window: one counter per aligned window. KEYS[1] = <base>:<window start us>,
-- named by the caller (see windowKey in the prelude). Mirrors core/limiter/fixed_window.cpp.
local start = idiv(now, window) * window
local key = windowKey(1, start)
if not key then return windowMismatch(start) end
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
