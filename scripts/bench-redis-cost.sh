#!/usr/bin/env bash
# Redis CPU per decision: RateLab's six Lua scripts beside the lightest peer
# for the same algorithm, in one run, against a private redis-server on a
# free loopback port (never :6379):
#   token_bucket  vs  the seed article's script (resources/examples/seed_token_bucket.lua:
#                     HMGET / float refill / HMSET / EXPIRE, client clock)
#   sliding_log   vs  Python limits' moving window (MovingWindowRateLimiter.hit, the real library)
#   fixed_window  vs  Python limits' fixed window  (FixedWindowRateLimiter.hit, the real library)
#   the other three: RateLab only.
# One measurement = FLUSHALL, CONFIG RESETSTAT, 20 connections deciding over
# 2,000 keys for S seconds (scripts/peers/redis_cost_driver.py drives every
# side the same way; RateLab with the client clock, as the peers), then INFO
# commandstats: microseconds of EVALSHA per decision (the commands a script
# runs are inside its time). Quota: 1000 per 60 s, so nearly everything is
# admitted (the path that writes). The machine is shared: the sides alternate
# (the order flips every round) and the median of the per-round ratios is
# printed with the best and median of each side.
# token_bucket and sliding_log also run as Redis 7 Functions (the same body,
# FUNCTION LOAD + FCALL; the driver's 'function' side), printed as a second
# table: what Functions would save. RateLab itself runs EVALSHA.
# Usage: scripts/bench-redis-cost.sh [seconds per measurement, default 3] [rounds, default 3]
set -euo pipefail
shopt -s inherit_errexit  # a failed driver run fails the script, also inside $(...)
cd "$(dirname "$0")/.."
secs=${1:-3}
rounds=${2:-3}
py=/usr/bin/python3
driver=scripts/peers/redis_cost_driver.py
. scripts/lib/bench-common.sh
bench_cli bench-redis-cost
bench_require bench-redis-cost "apt-get install redis-server redis-tools" redis-server redis-cli
"$py" -c 'import limits, redis' 2>/dev/null ||
  { echo "bench-redis-cost: $py cannot import limits and redis (apt-get install python3-limits python3-redis)" >&2; exit 2; }

bench_private_redis

algorithms=(token_bucket sliding_log fixed_window sliding_counter leaky_bucket gcra)
for a in "${algorithms[@]}"; do "$cli" script "$a" > "$dir/$a.lua"; done
peer_of() {
  case "$1" in
    token_bucket) echo "script resources/examples/seed_token_bucket.lua seed" ;;
    sliding_log) echo "limits-moving" ;;
    fixed_window) echo "limits-fixed" ;;
    *) echo "" ;;
  esac
}
peer_name() {
  case "$1" in
    token_bucket) echo "seed article script" ;;
    sliding_log) echo "limits moving window" ;;
    fixed_window) echo "limits fixed window" ;;
  esac
}

# How many window keys the script of $1 takes in KEYS (the prelude's wrongWindow checks them).
window_keys() {
  case "$1" in
    fixed_window) echo 1 ;;
    sliding_counter) echo 2 ;;
    *) echo 0 ;;
  esac
}

# Server us per decision of one side: $@ = driver arguments after the options.
measure() {
  redis-cli -p "$port" FLUSHALL >/dev/null
  redis-cli -p "$port" CONFIG RESETSTAT >/dev/null
  local n
  n=$("$py" "$driver" --port "$port" --seconds "$secs" "$@")
  redis-cli -p "$port" INFO commandstats | tr -d '\r' |
    awk -F'[:,=]' -v n="$n" '$1 ~ /^cmdstat_(evalsha|eval|fcall)$/ { usec += $5 } END { printf "%.2f\n", usec / n }'
}

median() { bench_median "$@"; }
best() { printf '%s\n' "$@" | sort -g | head -1; }

load_before=$(bench_load)
declare -A ours peers ratios fcalls fratios
for r in $(seq "$rounds"); do
  for a in "${algorithms[@]}"; do
    peer=$(peer_of "$a")
    if [[ -z "$peer" ]]; then
      ours[$a]+="$(measure --window-keys "$(window_keys "$a")" script "$dir/$a.lua" ratelab) "
      continue
    fi
    # shellcheck disable=SC2086
    if ((r % 2)); then o=$(measure --window-keys "$(window_keys "$a")" script "$dir/$a.lua" ratelab); p=$(measure $peer)
    else p=$(measure $peer); o=$(measure --window-keys "$(window_keys "$a")" script "$dir/$a.lua" ratelab); fi
    ours[$a]+="$o "; peers[$a]+="$p "
    ratios[$a]+="$(awk -v o="$o" -v p="$p" 'BEGIN { printf "%.3f", o / p }') "
    if [[ "$a" == token_bucket || "$a" == sliding_log ]]; then  # the same body as a Redis 7 Function
      f=$(measure function "$dir/$a.lua" ratelab)
      fcalls[$a]+="$f "
      fratios[$a]+="$(awk -v o="$f" -v p="$p" 'BEGIN { printf "%.3f", o / p }') "
    fi
  done
  echo "round $r of $rounds done" >&2
done
load_after=$(bench_load)

echo "Redis CPU per decision (INFO commandstats, EVALSHA usec / decisions; ${secs} s per side, $rounds rounds, 20 connections, 2,000 keys, 1000 per 60 s)"
echo
echo "| algorithm | RateLab µs (median / best) | peer | peer µs (median / best) | ratio (median of rounds) |"
echo "|---|---|---|---|---|"
for a in "${algorithms[@]}"; do
  # shellcheck disable=SC2086
  line="| $a | $(median ${ours[$a]}) / $(best ${ours[$a]}) |"
  if [[ -n "${peers[$a]:-}" ]]; then
    # shellcheck disable=SC2086
    line+=" $(peer_name "$a") | $(median ${peers[$a]}) / $(best ${peers[$a]}) | $(median ${ratios[$a]}) |"
  else
    line+=" – | – | – |"
  fi
  echo "$line"
done
echo
echo "The same bodies loaded as Redis 7 Functions (FUNCTION LOAD, FCALL), measured after EVALSHA and the peer in each round:"
echo
echo "| algorithm | FCALL µs (median / best) | ratio to the peer (median of rounds) |"
echo "|---|---|---|"
for a in token_bucket sliding_log; do
  # shellcheck disable=SC2086
  echo "| $a | $(median ${fcalls[$a]}) / $(best ${fcalls[$a]}) | $(median ${fratios[$a]}) |"
done
echo
echo "per-round ratios (RateLab EVALSHA / peer): token_bucket ${ratios[token_bucket]}; sliding_log ${ratios[sliding_log]}"
echo "versions: $(redis-server --version | cut -d' ' -f1-3); python3-limits $("$py" -c 'import limits; print(limits.__version__)'); redis-py $("$py" -c 'import redis; print(redis.__version__)')"
echo "load before: $load_before"
echo "load after:  $load_after"
