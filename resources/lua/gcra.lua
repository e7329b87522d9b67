-- gcra: one string holding the theoretical arrival time (TAT); emission
-- interval T, burst tolerance limit * T. Mirrors core/limiter/gcra.cpp.
local key = KEYS[1]
local base = now
local stored = redis.call('GET', key)
if stored then base = math.max(tonumber(stored), now) end
local newTat = base + cost * interval
local tolerance = limit * interval
local ahead = base - now
local allowed, retry = 0, 0
if newTat - now <= tolerance then
  ahead = newTat - now
  redis.call('SET', key, num(newTat), 'PX', idiv(ahead + 999, 1000))
  allowed = 1
else
  retry = newTat - now - tolerance
end
local room = math.max(0, tolerance - ahead)
return {allowed, idiv(room, interval), retry, ahead, 0, level(room / interval)}
