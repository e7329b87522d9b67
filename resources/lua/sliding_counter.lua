-- sliding_counter: counts of the current and previous aligned windows,
-- KEYS[1] = <base>:<window start us>, KEYS[2] = <base>:<previous window start us>
-- (named by the caller, checked by wrongWindow in the prelude); admitted iff prev*(W-e) + (curr+cost)*W <= limit*W
-- (the stores keep 2*limit*W below 2^53, so this is exact). One MGET, and one
-- SET .. PX of the current count when admitted. Returns prev*(W-e) and curr
-- after the five fields, for the level. Mirrors core/limiter/sliding_counter.cpp.
local limit, window, cost = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[5])
local start = idiv(now, window) * window
local miss = wrongWindow(start, window, 2)
if miss then return miss end
local ckey = KEYS[1]
local counts = redis.call('MGET', KEYS[2], ckey)
local prev, curr = tonumber(counts[1]) or 0, tonumber(counts[2]) or 0
local e = now - start
local weighted = prev * (window - e)

-- smallest offset e' in a window where p * (W - e') <= room * W
local function firstAdmitting(p, room)
  local slack = idiv(room * window, p)
  if slack >= window then return 0 end
  return window - slack
end

local allowed, retry = 0, 0
if weighted + (curr + cost) * window <= limit * window then
  curr = curr + cost
  redis.call('SET', ckey, curr, 'PX', math.floor((2 * window - e + 999) / 1000))
  allowed = 1
elseif curr + cost <= limit then
  retry = firstAdmitting(prev, limit - curr - cost) - e
else
  retry = (window - e) + firstAdmitting(curr, limit - cost)
end
local room = limit * window - (weighted + curr * window)
local remaining = 0
if room > 0 then remaining = idiv(room, window) end
local reset = 0
if curr > 0 then reset = 2 * window - e elseif prev > 0 then reset = window - e end
return {allowed, remaining, retry, reset, 0, weighted, curr}
