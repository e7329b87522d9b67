#!/usr/bin/env bash
# RateLab as an HTTP load generator (issue 21, item 6), beside wrk and
# autocannon, against ONE nginx (one worker, `return 200`, no limit), the
# three alternating `rounds` times in one run:
#   ratelab    ratelab-cli run --backend http --pattern burst, C workers and C
#              clients (every decision recorded, limit headers read)
#   wrk        wrk -t2 -cC -d<secs>s
#   autocannon autocannon -c C -d <secs> (npm, scripts/peers)
# It prints each measurement, the best and the median req/s per tool, the
# ratios ratelab / wrk and ratelab / autocannon (of the medians), the versions
# and `uptime` before and after: the machine may be shared.
# Usage: scripts/bench-http-client.sh [seconds per measurement, default 5] [rounds, default 3] [connections, default 50]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
rounds=${2:-3}
conns=${3:-50}
. scripts/lib/bench-common.sh
. scripts/lib/nginx.sh
bench_cli bench-http-client
bench_require bench-http-client "scripts/install-deps.sh" wrk nginx node npm python3
if [[ ! -x scripts/peers/node_modules/.bin/autocannon ]]; then
  echo "bench-http-client: installing autocannon (npm ci in scripts/peers)" >&2
  (cd scripts/peers && npm ci --no-audit --no-fund >/dev/null)
fi
autocannon=scripts/peers/node_modules/.bin/autocannon

dir=$(mktemp -d)
cleanup() {
  nginx_stop
  rm -rf "$dir"
}
trap cleanup EXIT INT TERM

# No limiter here (the client is measured, not nginx), so `return` may answer.
nginx_start "$dir" "" 'return 200 "ok\n";'
url=$nginx_url

ratelab() {  # req/s of one RateLab storm lasting about $secs seconds
  local n=$(( ${last_ratelab:-30000} * secs ))
  "$cli" run --backend http --http-target "$url" --algorithm fixed_window --limit 1000000000 --window-ms 60000 \
    --pattern burst --requests "$n" --concurrency "$conns" --clients "$conns" --json 2>/dev/null |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["runs"][0]; assert r["errors"]==0, r; print(int(r["throughput_rps"]))'
}
wrk_rps() { wrk -t2 -c"$conns" -d"${secs}s" "$url" | awk '/Requests\/sec/ {print int($2)}'; }
autocannon_rps() {
  "$autocannon" -j -c "$conns" -d "$secs" "$url" 2>/dev/null |
    python3 -c 'import json,sys; print(int(json.load(sys.stdin)["requests"]["average"]))'
}

echo "load before: $(bench_load)"
declare -A results
for r in $(seq "$rounds"); do
  for tool in ratelab wrk autocannon; do
    case $tool in
      ratelab) v=$(ratelab); last_ratelab=$v ;;
      wrk) v=$(wrk_rps) ;;
      autocannon) v=$(autocannon_rps) ;;
    esac
    results[$tool]+="$v "
    echo "round $r  $tool  $v req/s"
  done
done
echo "load after:  $(bench_load)"

summary() {  # the numbers -> "best median" (whole req/s)
  printf '%d %d\n' "$(printf '%s\n' "$@" | sort -g | tail -1)" "$(bench_median "$@" | awk '{ printf "%d", $1 }')"
}
read -r rb rm <<<"$(summary ${results[ratelab]})"
read -r wb wm <<<"$(summary ${results[wrk]})"
read -r ab am <<<"$(summary ${results[autocannon]})"
printf '%-11s best %7d  median %7d req/s\n' ratelab "$rb" "$rm" wrk "$wb" "$wm" autocannon "$ab" "$am"
python3 -c "print(f'ratio ratelab/wrk {$rm/$wm:.2f}x  ratelab/autocannon {$rm/$am:.2f}x (medians; goal >= 0.8x wrk)')"
echo "versions: $("$cli" --help >/dev/null 2>&1; git rev-parse --short HEAD 2>/dev/null || echo '?') ratelab," \
  "$(wrk --version 2>&1 | head -1 | awk '{print $1, $2}'), autocannon $("$autocannon" --version 2>&1 | head -1 | awk '{print $2}')," \
  "nginx $(nginx_version), node $(node --version), $(nproc) cores, $conns connections, ${secs}s x $rounds rounds"
