-- leaky_bucket (shaper): hash {tat} = when the queue drains; admitted requests
-- wait `delay`; denied when the wait would exceed limit - 1 intervals (at most
-- `limit` admitted at once: one in service, limit - 1 waiting).
-- Mirrors core/limiter/leaky_bucket.cpp.
local key = KEYS[1]
local drainAt = tonumber(redis.call('HGET', key, 'tat') or num(now))
local start = math.max(now, drainAt)
local wait = start - now
local need = wait + (cost - 1) * interval
local room = (limit - 1) * interval
local backlog = wait
local allowed, retry, delay = 0, 0, 0
if need <= room then
  drainAt = start + cost * interval
  backlog = drainAt - now
  allowed = 1
  delay = wait
  redis.call('HSET', key, 'tat', num(drainAt))
  pexpire(key, backlog)
else
  retry = need - room
end
local remaining = 0
if backlog <= room then remaining = idiv(room - backlog, interval) + 1 end
return {allowed, remaining, retry, backlog, delay, level(backlog / interval)}
