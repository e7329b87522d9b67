-- token_bucket: one string "fullAt:interval:limit", the time the bucket is
-- full again (us) and the quota it was written under; at `now` it holds
-- limit - ceil((fullAt - now) / interval) whole tokens, and a fresh key is a
-- full bucket. A state written under another quota keeps its tokens (clamped
-- to the new capacity): whole tokens carry over exactly, the partial one its
-- fraction (core/limiter/quota_change.hpp). A bare "fullAt" (an older key)
-- reads as written under this quota. One GET, and one SET .. PX when tokens
-- are taken. An admission returns one integer, the time until the bucket is
-- full again (core/redis/lua_reply.cpp derives remaining and level from it);
-- a denial returns the five fields. Mirrors core/limiter/token_bucket.cpp.
local key = KEYS[1]
local cap, interval, cost = ARGV[2] + 0, ARGV[4] + 0, ARGV[5] + 0  -- (+ 0 parses once, tonumber twice)
local capacity = cap * interval
local base = now
local v = redis.call('GET', key)
if v then
  local f, i, l = string.match(v, '^(%d+):?(%d*):?(%d*)$')
  local full = tonumber(f)
  if not full then return redis.error_reply('token_bucket key ' .. key .. " holds '" .. v .. "', expected 'fullAt:interval:limit' (us)") end
  if full > now then
    i, l = tonumber(i) or interval, tonumber(l) or cap
    if i == interval and l == cap then
      base = full
    else  -- written under another quota: carry the tokens over
      local held = l * i - (full - now)
      if held < 0 then held = 0 end
      local whole = idiv(held, i)
      local kept = whole * interval + idiv((held - whole * i) * interval, i)
      if kept > capacity then kept = capacity end
      base = now + capacity - kept
    end
  end
end
local missing = base + cost * interval - now
if missing > capacity then
  local held = capacity - base + now
  if held < 0 then held = 0 end
  return {0, idiv(held, interval), missing - capacity, base - now, 0}
end
redis.call('SET', key, string.format('%.0f:%.0f:%.0f', base + cost * interval, interval, cap), 'PX', math.floor((missing + 999) / 1000))
return missing
