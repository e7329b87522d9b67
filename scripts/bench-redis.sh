#!/usr/bin/env bash
# Throughput of ratelab-cli bench next to redis-benchmark, in the same run,
# against a private redis-server on a free loopback port (never :6379):
#   1. redis-benchmark -c 50      EVALSHA <token_bucket> vs  ratelab-cli bench --concurrency 50
#      (1 command in flight per connection; ratelab-cli runs 2 poll() loops, one per core,
#       redis-benchmark one event loop: ratelab-cli --threads 1 is shown too)
#   2. redis-benchmark -c 50 -P 16                        vs  ratelab-cli bench --concurrency 50 --pipeline 16
#   3. ratelab-cli bench --backend memory --concurrency 2 (distinct keys per thread)
# The EVALSHA is the same script with the same arguments RateLab sends
# (server clock, 100 req/s per key, cost 1) over 100,000 random keys.
# The machine is shared (2 cores): each pair is measured `rounds` times,
# alternating, and the best of each side is compared; since other work on the
# machine comes and goes, the median of the per-round ratios (the two sides
# measured back to back) is printed too.
# Usage: scripts/bench-redis.sh [seconds per measurement, default 5] [rounds, default 3]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
rounds=${2:-3}
. scripts/lib/bench-common.sh
bench_cli bench-redis
bench_require bench-redis "apt-get install redis-server redis-tools" redis-server redis-benchmark redis-cli
bench_private_redis

sha=$(redis-cli -p "$port" SCRIPT LOAD "$("$cli" script token_bucket)")
key='ratelab:{token_bucket:rb__rand_int__}'
requests=$((secs * 40000))

rb() {  # redis-benchmark requests/s for the EVALSHA; $@ = extra flags
  redis-benchmark -p "$port" -c 50 -n "$requests" -r 100000 --csv "$@" \
    EVALSHA "$sha" 1 "$key" '' 100 1000000 10000 1 | tail -1 | cut -d, -f2 | tr -d '"'
}
rl() {  # ratelab-cli decisions/s; $@ = extra flags
  "$cli" bench --backend "$@" --duration-ms $((secs * 1000)) --json | grep -o '"decisions_per_s": [0-9]*' | grep -o '[0-9]*$'
}

best() { awk -v a="$1" -v b="$2" 'BEGIN { print (a + 0 > b + 0) ? a : b }'; }
rb1=0; rl1=0; rl1one=0; rb16=0; rl16=0; mem=0; mem100k=0
load_before=$(bench_load)
r1=(); r1one=(); r16=()  # per-round ratios, percent
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", 100 * a / b }'; }
for _ in $(seq "$rounds"); do
  b=$(rb); a=$(rl redis-lua --redis "redis://127.0.0.1:$port" --concurrency 50 --clients 2000)
  one=$(rl redis-lua --redis "redis://127.0.0.1:$port" --concurrency 50 --clients 2000 --threads 1)
  rb1=$(best "$rb1" "$b"); rl1=$(best "$rl1" "$a"); rl1one=$(best "$rl1one" "$one")
  r1+=("$(pct "$a" "$b")"); r1one+=("$(pct "$one" "$b")")
  b=$(rb -P 16); a=$(rl redis-lua --redis "redis://127.0.0.1:$port" --concurrency 50 --clients 2000 --pipeline 16)
  rb16=$(best "$rb16" "$b"); rl16=$(best "$rl16" "$a"); r16+=("$(pct "$a" "$b")")
  mem=$(best "$mem" "$(rl memory --concurrency 2 --clients 1000)")
  mem100k=$(best "$mem100k" "$(rl memory --concurrency 2 --clients 100000)")
done
median() { printf '%.1f%%' "$(bench_median "$@")"; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f%%", 100 * a / b }'; }
printf '%-46s %14s %14s %8s %8s\n' "token_bucket, best of $rounds x ${secs}s" "redis-benchmark" "ratelab-cli" "ratio" "median"
printf '%-46s %14.0f %14d %8s %8s\n' "redis-lua, 50 connections" "$rb1" "$rl1" "$(ratio "$rl1" "$rb1")" "$(median "${r1[@]}")"
printf '%-46s %14.0f %14d %8s %8s\n' "redis-lua, 50 connections, 1 event loop" "$rb1" "$rl1one" "$(ratio "$rl1one" "$rb1")" "$(median "${r1one[@]}")"
printf '%-46s %14.0f %14d %8s %8s\n' "redis-lua, 50 connections, pipeline 16" "$rb16" "$rl16" "$(ratio "$rl16" "$rb16")" "$(median "${r16[@]}")"
echo "per-round ratios: 50 conn ${r1[*]}; 1 loop ${r1one[*]}; pipeline 16 ${r16[*]}"
printf '%-46s %14s %14d %8s\n' "memory, 2 threads, 1,000 distinct keys each" "-" "$mem" "-"
printf '%-46s %14s %14d %8s\n' "memory, 2 threads, 100,000 distinct keys each" "-" "$mem100k" "-"
echo "load before: $load_before   after: $(bench_load)"
