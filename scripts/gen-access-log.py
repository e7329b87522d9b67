#!/usr/bin/env python3
"""Writes a synthetic nginx "combined" access log for benchmarks and demos.

usage: gen-access-log.py LINES OUT [--clients N] [--seconds S] [--seed K]

Clients are 10.x.y.z addresses with Zipf-like activity (a few heavy hitters,
a long tail); one in fifty clients is an abuser that sends bursts. Times are
sorted and have one-second resolution, as $time_local does.
"""
import argparse
import random
import time

p = argparse.ArgumentParser()
p.add_argument("lines", type=int)
p.add_argument("out")
p.add_argument("--clients", type=int, default=2000)
p.add_argument("--seconds", type=int, default=3600)
p.add_argument("--seed", type=int, default=1)
a = p.parse_args()
rng = random.Random(a.seed)
addrs = [f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}" for i in range(1, a.clients + 1)]
weights = [1.0 / (i + 1) ** 0.8 for i in range(a.clients)]
abusers = set(range(0, a.clients, 50))
paths = ["/api/items", "/api/login", "/api/search?q=rate", "/static/app.js", "/"]
start = 1_700_000_000
stamps = [time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(start + s)) for s in range(a.seconds + 1)]
per_second = a.lines / a.seconds
with open(a.out, "w") as f:
    sec, written = 0, 0
    while written < a.lines:
        n = min(a.lines - written, max(1, int(rng.expovariate(1.0 / per_second))))
        chosen = rng.choices(range(a.clients), weights, k=n)
        rows = []
        for c in chosen:
            reps = rng.randint(5, 30) if c in abusers and rng.random() < 0.05 else 1
            for _ in range(reps):
                rows.append(f'{addrs[c]} - - [{stamps[min(sec, a.seconds)]}] "GET {rng.choice(paths)} HTTP/1.1" '
                            f'200 {rng.randint(100, 9000)} "-" "Mozilla/5.0 (X11; Linux x86_64) bench/{c % 7}"\n')
        rows = rows[: a.lines - written]
        f.writelines(rows)
        written += len(rows)
        sec += 1
