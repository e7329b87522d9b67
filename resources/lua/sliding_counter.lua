-- sliding_counter: counts of the current and previous aligned windows,
-- KEYS[1] = <base>:<window start us>, KEYS[2] = <base>:<previous window start us>
-- (named by the caller, see windowKey in the prelude);
-- admitted iff prev*(W-e) + (curr+cost)*W <= limit*W
-- (the stores keep 2*limit*W below 2^53, so this is exact).
-- Mirrors core/limiter/sliding_counter.cpp.
local start = idiv(now, window) * window
local ckey, pkey = windowKey(1, start), windowKey(2, start - window)
if not (ckey and pkey) then return windowMismatch(start) end
local prev = tonumber(redis.call('GET', pkey) or '0')
local curr = tonumber(redis.call('GET', ckey) or '0')
local e = now - start

-- smallest offset e' in a window where p * (W - e') <= room * W
local function firstAdmitting(p, room)
  local slack = idiv(room * window, p)
  if slack >= window then return 0 end
  return window - slack
end

local allowed, retry = 0, 0
if prev * (window - e) + (curr + cost) * window <= limit * window then
  curr = tonumber(redis.call('INCRBY', ckey, cost))
  pexpire(ckey, 2 * window - e)
  allowed = 1
elseif curr + cost <= limit then
  retry = firstAdmitting(prev, limit - curr - cost) - e
else
  retry = (window - e) + firstAdmitting(curr, limit - cost)
end
local room = limit * window - (prev * (window - e) + curr * window)
local remaining = 0
if room > 0 then remaining = idiv(room, window) end
local reset = 0
if curr > 0 then reset = 2 * window - e elseif prev > 0 then reset = window - e end
return {allowed, remaining, retry, reset, 0, level(prev * (window - e) / window + curr)}
