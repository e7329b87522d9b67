-- RateLab prelude: prepended to every limiter script (see core/redis/lua_scripts.hpp).
-- Calling convention of every script:
--   KEYS[1] = <prefix>{<algorithm>:<client>} (the base key), except for the
--             window algorithms, whose KEYS are their window keys
--             <base>:<window start us> (fixed_window: the current window;
--             sliding_counter: the current, then the previous one). A script
--             names every key it touches in KEYS, so a Redis Cluster routes
--             and migrates them correctly. With the server clock the caller
--             guesses the window from its own clock; when the script's TIME
--             says otherwise it answers the error 'RL_WINDOW <start us>' and the
--             caller asks again with that window.
--   ARGV    = now_us ('' = use redis TIME), limit, window_us, interval_us, cost
--   returns {allowed 0/1, remaining, retryAfter_us, resetAfter_us, delay_us, level as a string}
-- Integers are exact in Lua doubles below 2^53 (the stores check the bounds);
-- every division that must be exact goes through idiv.

local function idiv(a, b)  -- floor(a / b), exact for integers below 2^53
  local q = math.floor(a / b)
  local r = a - q * b
  if r < 0 then q = q - 1 elseif r >= b then q = q + 1 end
  return q
end

local function num(s)  -- integer microseconds as a decimal string (no exponent)
  return string.format('%.0f', s)
end

local function level(x)  -- fractions leave Lua as strings (redis truncates numbers)
  return string.format('%.17g', x)
end

local function pexpire(key, ttl_us)  -- PEXPIRE ceil(ttl / 1 ms): the C++ Step::ttl
  redis.call('PEXPIRE', key, idiv(ttl_us + 999, 1000))
end

local function windowKey(i, start)  -- KEYS[i] when it is the key of the window at `start`
  local suffix = ':' .. num(start)
  if KEYS[i] and string.sub(KEYS[i], -#suffix) == suffix then return KEYS[i] end
  return nil
end

local function windowMismatch(start)  -- the caller named another window: tell it which one
  return redis.error_reply('RL_WINDOW ' .. num(start))
end

local now
if ARGV[1] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[1])
end
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local interval = tonumber(ARGV[4])
local cost = tonumber(ARGV[5])
