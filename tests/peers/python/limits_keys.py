#!/usr/bin/python3
"""Writes limiter keys with the real Python `limits` library (Debian python3-limits)
into the Redis on 127.0.0.1:<port> and prints the library's own view of each key
as one JSON object per line: {"key", "strategy", "limit", "used", "reset_ms"}.
Used by tests/core/redis/test_foreign_keys.cpp. Usage: limits_keys.py PORT"""
import json
import sys
import time

import limits
from limits.storage import storage_from_string
from limits.strategies import (FixedWindowElasticExpiryRateLimiter, FixedWindowRateLimiter,
                               MovingWindowRateLimiter)

port = int(sys.argv[1])
storage = storage_from_string(f"redis://127.0.0.1:{port}")
cases = [
    (MovingWindowRateLimiter, "moving-window", "10/minute", "user42", 3),
    (MovingWindowRateLimiter, "moving-window", "5 per 2 second", "burst", 5),
    (FixedWindowRateLimiter, "fixed-window", "100/hour", "user7", 4),
    (FixedWindowElasticExpiryRateLimiter, "fixed-window-elastic-expiry", "20 per 5 minute", "elastic", 6),
]
for cls, name, text, who, hits in cases:
    limiter = cls(storage)
    item = limits.parse(text)
    for _ in range(hits):
        limiter.hit(item, who, "api")
    reset_s, remaining = limiter.get_window_stats(item, who, "api")
    print(json.dumps({"key": item.key_for(who, "api"), "strategy": name, "limit": item.amount,
                      "used": item.amount - remaining, "reset_ms": int((reset_s - time.time()) * 1000)}))
