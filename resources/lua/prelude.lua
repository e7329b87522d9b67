-- RateLab prelude: prepended to every limiter script (see core/redis/lua_scripts.hpp).
-- Calling convention of every script:
--   KEYS[1] = <prefix>{<algorithm>:<client>} (the base key), except for the
--             window algorithms, whose KEYS are their window keys
--             <base>:<window start us> (fixed_window: the current window;
--             sliding_counter: the current, then the previous one). A script
--             names every key it touches in KEYS, so a Redis Cluster routes
--             and migrates them correctly. With the server clock the caller
--             guesses the window from its own clock; when the script's TIME
--             says otherwise it answers the error 'RL_WINDOW <start us>' and
--             the caller asks again with that window (see wrongWindow).
--   ARGV    = now_us ('' = use redis TIME), limit, window_us, interval_us, cost
--   returns {allowed 0/1, remaining, retryAfter_us, resetAfter_us, delay_us}
--   (sliding_counter adds two fields); core/redis/lua_reply.cpp derives the
--   chart level from these, so no fraction has to leave Lua as a string.
-- This runs on every decision, inside Redis: each script parses only the
-- arguments it uses, calls Redis as few times as it can, and formats no
-- number that Redis can format itself (redis.call writes a Lua number as an
-- exact integer below 2^53; Lua's own tostring and '..' do not).
-- Integers are exact in Lua doubles below 2^53 (the stores check the bounds);
-- every division whose quotient can be large goes through idiv.

local function idiv(a, b)  -- floor(a / b), exact for integers below 2^53
  local q = math.floor(a / b)
  local r = a - q * b
  if r < 0 then q = q - 1 elseif r >= b then q = q + 1 end
  return q
end

-- nil when KEYS[1..n] name the windows at start, start - window, ...; else the
-- error that tells the caller which window the script's clock is in
local function wrongWindow(start, window, n)
  for i = 1, n do
    local tail = ':' .. string.format('%.0f', start - (i - 1) * window)
    if not KEYS[i] or string.sub(KEYS[i], -#tail) ~= tail then
      return redis.error_reply('RL_WINDOW ' .. string.format('%.0f', start))
    end
  end
end

local now = ARGV[1]
if now == '' then
  local t = redis.call('TIME')
  now = t[1] * 1000000 + t[2]
else
  now = tonumber(now)
end
