-- gcra: one string holding the theoretical arrival time (TAT); emission
-- interval T, burst tolerance limit * T. One GET, and one SET .. PX when
-- admitted. Mirrors core/limiter/gcra.cpp.
local key = KEYS[1]
local limit, interval, cost = ARGV[2] + 0, ARGV[4] + 0, ARGV[5] + 0  -- (+ 0 parses once, tonumber twice)
local base = now
local stored = redis.call('GET', key)
if stored then
  stored = tonumber(stored)
  if stored > now then base = stored end
end
local newTat = base + cost * interval
local tolerance = limit * interval
local ahead = base - now
local allowed, retry = 0, 0
if newTat - now <= tolerance then
  ahead = newTat - now
  redis.call('SET', key, newTat, 'PX', math.floor((ahead + 999) / 1000))
  allowed = 1
else
  retry = newTat - now - tolerance
end
local room = tolerance - ahead
if room < 0 then room = 0 end
return {allowed, idiv(room, interval), retry, ahead, 0}
