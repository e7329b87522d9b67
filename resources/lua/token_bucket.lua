-- token_bucket: one string holding the time the bucket is full again (us);
-- at `now` it holds limit - ceil((fullAt - now) / interval) whole tokens, and
-- a fresh key is a full bucket. One GET, and one SET .. PX when tokens are
-- taken. An admission returns one integer, the time until the bucket is full
-- again (core/redis/lua_reply.cpp derives remaining and level from it); a
-- denial returns the five fields. Mirrors core/limiter/token_bucket.cpp.
local key = KEYS[1]
local cap, interval, cost = ARGV[2] + 0, ARGV[4] + 0, ARGV[5] + 0  -- (+ 0 parses once, tonumber twice)
local base = now
local v = redis.call('GET', key)
if v then
  local full = tonumber(v)
  if not full then return redis.error_reply('token_bucket key ' .. key .. " holds '" .. v .. "', expected the time the bucket is full (us)") end
  if full > now then base = full end
end
local capacity = cap * interval
local missing = base + cost * interval - now
if missing > capacity then
  local held = capacity - base + now
  if held < 0 then held = 0 end
  return {0, idiv(held, interval), missing - capacity, base - now, 0}
end
redis.call('SET', key, base + cost * interval, 'PX', math.floor((missing + 999) / 1000))
return missing
