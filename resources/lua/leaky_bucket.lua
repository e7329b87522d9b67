-- leaky_bucket (shaper): one string "drainAt:interval", when the queue drains
-- (us) and the interval it was written under; admitted requests wait `delay`;
-- denied when the wait would exceed limit - 1 intervals (at most `limit`
-- admitted at once: one in service, limit - 1 waiting). A state written under
-- another interval keeps its queued requests (core/limiter/quota_change.hpp);
-- a bare "drainAt" (an older key) reads as written under this one. One GET,
-- and one SET .. PX when admitted. Mirrors core/limiter/leaky_bucket.cpp.
local key = KEYS[1]
local limit, interval, cost = ARGV[2] + 0, ARGV[4] + 0, ARGV[5] + 0  -- (+ 0 parses once, tonumber twice)
local start = now
local stored = redis.call('GET', key)
if stored then
  local d, i = string.match(stored, '^(%d+):?(%d*)$')
  local drainAt = tonumber(d)
  if not drainAt then return redis.error_reply('leaky_bucket key ' .. key .. " holds '" .. stored .. "', expected 'drainAt:interval' (us)") end
  if drainAt > now then
    i = tonumber(i) or interval
    if i == interval then
      start = drainAt
    else  -- written under another interval: keep the queued requests
      local queued = drainAt - now
      local whole = idiv(queued, i)
      start = now + whole * interval + idiv((queued - whole * i) * interval, i)
    end
  end
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
  redis.call('SET', key, string.format('%.0f:%.0f', drainAt, interval), 'PX', math.floor((backlog + 999) / 1000))
else
  retry = need - room
end
local remaining = 0
if backlog <= room then remaining = idiv(room - backlog, interval) + 1 end
return {allowed, remaining, retry, backlog, delay}
