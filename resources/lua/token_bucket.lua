-- token_bucket: a string '<tokens> <ts>' (whole tokens, one per interval, the
-- partial interval carried in ts); a fresh key is a full bucket. One GET, and
-- one SET .. PX when a token is taken. Mirrors core/limiter/token_bucket.cpp.
local key = KEYS[1]
local cap, interval, cost = tonumber(ARGV[2]), tonumber(ARGV[4]), tonumber(ARGV[5])
local tokens, ts = cap, now
local v = redis.call('GET', key)
if v then
  local a, b = string.match(v, '^(%d+) (%d+)$')
  if not a then return redis.error_reply('token_bucket key ' .. key .. " holds '" .. v .. "', expected '<tokens> <ts>'") end
  tokens, ts = tonumber(a), tonumber(b)
end
if now > ts then
  local n = idiv(now - ts, interval)
  if n >= cap - tokens then
    tokens = cap
    ts = now
  else
    tokens = tokens + n
    ts = ts + n * interval
  end
end
local carried = now - ts
if tokens < cost then
  local reset = (cap - tokens) * interval - carried
  if reset < 0 then reset = 0 end
  return {0, tokens, (cost - tokens) * interval - carried, reset, 0}
end
tokens = tokens - cost
local reset = (cap - tokens) * interval - carried  -- > 0: at least one token is missing
local tsText = ARGV[1]
if ts ~= now or tsText == '' then tsText = string.format('%.0f', ts) end
redis.call('SET', key, tokens .. ' ' .. tsText, 'PX', math.floor((reset + 999) / 1000))
return {1, tokens, 0, reset, 0}
