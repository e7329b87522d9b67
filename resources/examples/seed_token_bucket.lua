-- The "seed article" token bucket: the common pattern RateLab measures its own
-- scripts against (scripts/bench-redis-cost.sh) and that users bring as their
-- own limiter (--backend redis-script). Client clock, float tokens.
--   KEYS[1] = the bucket (hash: tokens, last_refill)
--   ARGV    = capacity, refill_rate_per_s, now_s (seconds, may be fractional), cost
--   returns {allowed 0/1, tokens left (whole)}
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])

local state = redis.call('HMGET', KEYS[1], 'tokens', 'last_refill')
local tokens = tonumber(state[1]) or capacity
local last = tonumber(state[2]) or now

local elapsed = math.max(0, now - last)
tokens = math.min(capacity, tokens + elapsed * rate)

local allowed = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
end

redis.call('HMSET', KEYS[1], 'tokens', tokens, 'last_refill', now)
redis.call('EXPIRE', KEYS[1], math.ceil(capacity / rate) * 2)
return {allowed, math.floor(tokens)}
