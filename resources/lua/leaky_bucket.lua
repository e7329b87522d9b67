-- leaky_bucket (shaper): one string holding when the queue drains (tat);
-- admitted requests wait `delay`; denied when the wait would exceed limit - 1
-- intervals (at most `limit` admitted at once: one in service, limit - 1
-- waiting). One GET, and one SET .. PX when admitted.
-- Mirrors core/limiter/leaky_bucket.cpp.
local key = KEYS[1]
local limit, interval, cost = ARGV[2] + 0, ARGV[4] + 0, ARGV[5] + 0  -- (+ 0 parses once, tonumber twice)
local start = now
local stored = redis.call('GET', key)
if stored then
  stored = tonumber(stored)
  if stored > now then start = stored end
end
local wait = start - now
local need = wait + (cost - 1) * interval
local room = (limit - 1) * interval
local backlog = wait
local allowed, retry, delay = 0, 0, 0
if need <= room then
  local drainAt = start + cost * interval
  backlog = drainAt - now
  allowed = 1
  delay = wait
  redis.call('SET', key, drainAt, 'PX', math.floor((backlog + 999) / 1000))
else
  retry = need - room
end
local remaining = 0
if backlog <= room then remaining = idiv(room - backlog, interval) + 1 end
return {allowed, remaining, retry, backlog, delay}
