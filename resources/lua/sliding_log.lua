-- sliding_log: a ZSET of admitted timestamps (one entry per unit of cost),
-- window (now - W, now]. Members are '<ts>:<i>', i numbering the entries of one
-- timestamp, so they stay unique when timestamps collide (entries of one score
-- are always removed together). Mirrors core/limiter/sliding_log.cpp.
local key = KEYS[1]
local removed = redis.call('ZREMRANGEBYSCORE', key, '-inf', num(now - window))
local n = redis.call('ZCARD', key)
local allowed, retry = 0, 0
if n + cost <= limit then
  local same = redis.call('ZCOUNT', key, num(now), num(now))
  local args, i = {}, 0
  while i < cost do
    args[#args + 1] = num(now)
    args[#args + 1] = num(now) .. ':' .. num(same + i)
    i = i + 1
    if #args >= 2000 or i == cost then
      redis.call('ZADD', key, unpack(args))
      args = {}
    end
  end
  n = n + cost
  allowed = 1
else
  local oldest = redis.call('ZRANGE', key, n + cost - limit - 1, n + cost - limit - 1, 'WITHSCORES')
  retry = tonumber(oldest[2]) + window - now
end
local reset = 0
if n > 0 then
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  reset = tonumber(last[2]) + window - now
  if allowed == 1 or removed > 0 then pexpire(key, reset) end
end
return {allowed, limit - n, retry, reset, 0, level(n)}
