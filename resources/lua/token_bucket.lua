-- token_bucket: hash {tokens, ts}; whole tokens, one per interval, the partial
-- interval carried in ts; a fresh key is a full bucket.
-- Mirrors core/limiter/token_bucket.cpp.
local key = KEYS[1]
local cap = limit
local h = redis.call('HMGET', key, 'tokens', 'ts')
local tokens, ts = cap, now
if h[1] and h[2] then
  tokens = tonumber(h[1])
  ts = tonumber(h[2])
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
local allowed, retry = 0, 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
else
  retry = (cost - tokens) * interval - carried
end
local reset = math.max(0, (cap - tokens) * interval - carried)
if allowed == 1 then
  redis.call('HSET', key, 'tokens', num(tokens), 'ts', num(ts))
  pexpire(key, reset)
end
return {allowed, tokens, retry, reset, 0, level(math.min(cap, tokens + math.max(0, carried) / interval))}
