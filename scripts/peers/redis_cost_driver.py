#!/usr/bin/python3
"""Load driver of scripts/bench-redis-cost.sh: N connections (threads) make
rate-limit decisions over K keys for S seconds against one Redis, and print
how many were made. Redis' own time per decision is read by the caller from
INFO commandstats; this driver only has to be the same for every side.

Sides:
  script FILE ARGS   EVALSHA of a Lua file; ARGS is 'ratelab' (now_us, limit,
                     window_us, interval_us, cost) or 'seed' (capacity,
                     refill_rate_per_s, now_s, cost)
  function FILE ARGS the same Lua file loaded as a Redis 7 Function (FUNCTION
                     LOAD REPLACE, the body wrapped in redis.register_function)
                     and run with FCALL; ARGS as for script
  limits-fixed       Python limits' FixedWindowRateLimiter.hit (the real library)
  limits-moving      Python limits' MovingWindowRateLimiter.hit (the real library)
Every side gets the same quota: LIMIT per WINDOW seconds.
"""
import argparse
import threading
import time

import limits
import limits.storage
import limits.strategies
import redis


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--connections", type=int, default=20)
    p.add_argument("--keys", type=int, default=2000)
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--limit", type=int, default=1000)
    p.add_argument("--window", type=int, default=60, help="seconds")
    p.add_argument("--window-keys", type=int, default=0, choices=[0, 1, 2],
                   help="ratelab args: the script's KEYS are its window keys <key>:<window start us>, "
                        "current first (fixed_window 1, sliding_counter 2), as RedisLuaStore names them")
    p.add_argument("side", choices=["script", "function", "limits-fixed", "limits-moving"])
    p.add_argument("file", nargs="?")
    p.add_argument("args", nargs="?", choices=["ratelab", "seed"])
    a = p.parse_args()
    if a.side in ("script", "function") and (not a.file or not a.args):
        p.error(a.side + " needs FILE and ARGS (ratelab or seed)")

    interval_us = a.window * 1_000_000 // a.limit
    stop = time.monotonic() + a.seconds
    counts = [0] * a.connections
    errors = []

    def script_worker(i):
        r = redis.Redis(port=a.port)
        if a.side == "function":
            call = lambda keys, *argv: r.fcall("rl_cost_decide", len(keys), *keys, *argv)
        else:
            sha = r.script_load(open(a.file).read())
            call = lambda keys, *argv: r.evalsha(sha, len(keys), *keys, *argv)
        k = i
        while time.monotonic() < stop:
            key = "cost:{%d}" % (k % a.keys)
            if a.args == "ratelab":
                now = time.time_ns() // 1000
                window_us = a.window * 1_000_000
                start = now - now % window_us
                keys = ["%s:%d" % (key, start - i * window_us) for i in range(a.window_keys)] or [key]
                call(keys, str(now), a.limit, window_us, interval_us, 1)
            else:
                call([key], a.limit, a.limit / a.window, repr(time.time()), 1)
            counts[i] += 1
            k += a.connections

    def limits_worker(i):
        storage = limits.storage.RedisStorage("redis://127.0.0.1:%d" % a.port)
        cls = (limits.strategies.FixedWindowRateLimiter if a.side == "limits-fixed"
               else limits.strategies.MovingWindowRateLimiter)
        limiter = cls(storage)
        item = limits.RateLimitItemPerSecond(a.limit, a.window)
        k = i
        while time.monotonic() < stop:
            limiter.hit(item, "cost", str(k % a.keys))
            counts[i] += 1
            k += a.connections

    def guarded(fn, i):
        try:
            fn(i)
        except Exception as e:  # reported once, the run fails
            errors.append(repr(e))

    if a.side == "function":
        source = open(a.file).read()
        redis.Redis(port=a.port).function_load(
            "#!lua name=rl_cost\nredis.register_function('rl_cost_decide', function(KEYS, ARGV)\n"
            + source + "\nend)\n", replace=True)
    body = script_worker if a.side in ("script", "function") else limits_worker
    threads = [threading.Thread(target=guarded, args=(body, i)) for i in range(a.connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise SystemExit("redis_cost_driver: " + errors[0])
    print(sum(counts))


if __name__ == "__main__":
    main()
