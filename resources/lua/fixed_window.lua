-- fixed_window: one counter per aligned window, key <base>:<window start us>,
-- expiring at the window's end (set once, when INCRBY creates it). Admitted:
-- one INCRBY; denied: the INCRBY is taken back. Mirrors core/limiter/fixed_window.cpp.
local limit, window, cost = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[5])
local start = idiv(now, window) * window
local key = KEYS[1] .. ':' .. string.format('%.0f', start)
local untilEnd = start + window - now
local count = redis.call('INCRBY', key, cost)
if count <= limit then
  if count == cost then redis.call('PEXPIRE', key, math.floor((untilEnd + 999) / 1000)) end
  return {1, limit - count, 0, untilEnd, 0}
end
count = count - cost
if count == 0 then redis.call('DEL', key) else redis.call('DECRBY', key, cost) end
local reset = 0
if count > 0 then reset = untilEnd end
return {0, limit - count, untilEnd, reset, 0}
