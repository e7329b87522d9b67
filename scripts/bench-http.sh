#!/usr/bin/env bash
# HTTP throughput of RateLab's serve next to its peers, alternating in one run
# (issue 13), against a private redis-server on a free loopback port:
#   replica direct      ratelab-cli serve --front none, 1 replica, redis-lua token_bucket
#   node peer           node http + rate-limiter-flexible RateLimiterRedis (ioredis), one process
#   builtin front       serve --front builtin, 4 replicas, redis-lua
#   nginx front         serve --front nginx,   4 replicas, redis-lua
#   memory, builtin     serve --front builtin, 4 replicas, memory backend
#   memory, nginx       serve --front nginx,   4 replicas, memory backend
#   nginx limit_req     nginx, one worker, limit_req (in-memory) in front of a static file
# Every target is measured with `wrk -t2 -c50 -d<seconds>s -H 'x-api-key: k1'
# --latency`, with a limit so high that every request is admitted. The machine
# is shared: each path is measured `rounds` times, the paths alternating, and
# the best and the median are printed with the ratios, versions and `uptime`.
# Because other jobs share the machine, it also prints each path's own CPU time
# per request (utime + stime of its processes and their children, e.g. nginx's
# worker, over the measurement, divided by wrk's request count; redis-server and
# wrk are not counted): a figure much less sensitive to the load than req/s.
# Usage: scripts/bench-http.sh [seconds per measurement, default 5] [rounds, default 3]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
rounds=${2:-3}
. scripts/lib/bench-common.sh
. scripts/lib/nginx.sh
bench_cli bench-http
bench_require bench-http "scripts/install-deps.sh" redis-server redis-cli wrk nginx node npm
if [[ ! -d scripts/peers/node_modules/rate-limiter-flexible || ! -d scripts/peers/node_modules/ioredis ]]; then
  echo "bench-http: installing the Node peer (npm ci in scripts/peers)" >&2
  (cd scripts/peers && npm ci --no-audit --no-fund >/dev/null)
fi

dir=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT INT TERM

redis_port=$(bench_free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" --daemonize no \
  --logfile "$dir/redis.log" &
pids+=($!)
for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
redis="redis://127.0.0.1:$redis_port"
quota=(--algorithm token_bucket --limit 1000000000 --refill-rate 1000000)

declare -A url spid
serve() {  # name, serve flags...: starts a serve process and records its front URL
  local name=$1; shift
  "$cli" serve "${quota[@]}" --port 0 "$@" >"$dir/$name.out" 2>"$dir/$name.err" &
  pids+=($!)
  spid[$name]=$!
  for _ in $(seq 100); do grep -q '^front ' "$dir/$name.out" 2>/dev/null && break; sleep 0.1; done
  url[$name]=$(sed -n 's/^front //p' "$dir/$name.out")
  [[ -n "${url[$name]}" ]] || { echo "bench-http: serve $name did not start: $(cat "$dir/$name.err")" >&2; exit 1; }
}
serve direct --backend redis-lua --redis "$redis" --replicas 1 --front none
serve builtin --backend redis-lua --redis "$redis" --replicas 4 --front builtin
serve nginx --backend redis-lua --redis "$redis" --replicas 4 --front nginx
serve mem-builtin --backend memory --replicas 4 --front builtin
serve mem-nginx --backend memory --replicas 4 --front nginx

node_port=$(bench_free_port)
node scripts/peers/node-limiter.js "$node_port" "$redis_port" 1000000000 1 >"$dir/node.out" 2>&1 &
pids+=($!)
spid[node]=$!
url[node]="http://127.0.0.1:$node_port"

mkdir -p "$dir/limit_req"
nginx_start "$dir/limit_req" 'limit_req_zone $http_x_api_key zone=clients:10m rate=1000000r/s;' \
  'limit_req zone=clients burst=1000000 nodelay; limit_req_status 429; default_type application/json;'
echo '{"status":"ok"}' >"$dir/limit_req/www/ping"  # the static file limit_req guards (a `return` would skip it)
pids+=("$nginx_pid")
spid[limit_req]=$nginx_pid
url[limit_req]="http://127.0.0.1:$nginx_port"

for name in node limit_req; do
  for _ in $(seq 100); do curl -s -o /dev/null "${url[$name]}/ping" && break; sleep 0.1; done
done

paths=(direct node builtin nginx mem-builtin mem-nginx limit_req)
declare -A label=([direct]="replica direct, redis-lua" [node]="node peer (rate-limiter-flexible)"
  [builtin]="builtin front + 4, redis-lua" [nginx]="nginx front + 4, redis-lua"
  [mem-builtin]="builtin front + 4, memory" [mem-nginx]="nginx front + 4, memory"
  [limit_req]="nginx limit_req, 1 worker")
cpu_ticks() {  # utime + stime (clock ticks) of $1 and its child processes
  local total=0 p
  for p in "$1" $(pgrep -P "$1" || true); do
    total=$(( total + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0) ))
  done
  echo "$total"
}
tck=$(getconf CLK_TCK)
declare -A rps p50 non2xx cpu
for name in direct builtin nginx mem-builtin mem-nginx; do  # how each serve runs (replicas, threads, front)
  printf '%-12s %s\n' "$name" "$(sed -n 's/^serving //p' "$dir/$name.out")"
done
echo "load before: $(bench_load)"
for r in $(seq "$rounds"); do
  for name in "${paths[@]}"; do
    t0=$(cpu_ticks "${spid[$name]}")
    out=$(wrk -t2 -c50 -d"${secs}s" -H 'x-api-key: k1' --latency "${url[$name]}/ping")
    t1=$(cpu_ticks "${spid[$name]}")
    n=$(awk '/ requests in / {print $1}' <<<"$out")
    cpu[$name]+="$(awk -v t=$((t1 - t0)) -v n="${n:-0}" -v hz="$tck" 'BEGIN { printf "%.1f", (n > 0 ? t * 1e6 / hz / n : 0) }') "
    rps[$name]+="$(awk '/^Requests\/sec:/ {print $2}' <<<"$out") "
    p50[$name]+="$(awk '$1 == "50%" {print $2}' <<<"$out") "
    bad=$(awk '/Non-2xx or 3xx responses:/ {print $NF}' <<<"$out")
    non2xx[$name]=$(( ${non2xx[$name]:-0} + ${bad:-0} ))
    printf 'round %d  %-34s %10s req/s  p50 %-9s %s us CPU/req\n' "$r" "${label[$name]}" \
      "$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")" "$(awk '$1 == "50%" {print $2}' <<<"$out")" \
      "$(awk '{print $NF}' <<<"${cpu[$name]}")"
  done
done
echo "load after:  $(bench_load)"

stat() {  # best|median of the numbers in $1
  # shellcheck disable=SC2086  # $1 is a space-separated list
  if [[ $2 == best ]]; then printf '%s\n' $1 | sort -g | tail -1; else bench_median $1; fi
}
to_ms() {  # the median of wrk latencies (e.g. 812.00us, 4.52ms, 1.02s), in ms
  # shellcheck disable=SC2046
  bench_median $(tr ' ' '\n' <<<"$1" | grep -v '^$' | awk '{ v=$1; if (v ~ /us$/) { sub(/us$/,"",v); v/=1000 } else if (v ~ /ms$/) { sub(/ms$/,"",v) } else if (v ~ /s$/) { sub(/s$/,"",v); v*=1000 } print v }')
}
echo
echo "wrk -t2 -c50 -d${secs}s -H 'x-api-key: k1' --latency, $rounds rounds, paths alternating"
printf '| %-34s | %12s | %12s | %12s | %15s | %8s |\n' path "best req/s" "median req/s" "median p50" "CPU us/req (med)" "non-2xx"
printf '|%s|%s|%s|%s|%s|%s|\n' "------------------------------------" "--------------" "--------------" "--------------" "------------------" "----------"
declare -A best median cpumed
for name in "${paths[@]}"; do
  best[$name]=$(stat "${rps[$name]}" best)
  median[$name]=$(stat "${rps[$name]}" median)
  cpumed[$name]=$(stat "${cpu[$name]}" median)
  printf '| %-34s | %12.0f | %12.0f | %9.2f ms | %16.1f | %8d |\n' "${label[$name]}" "${best[$name]}" "${median[$name]}" \
    "$(to_ms "${p50[$name]}")" "${cpumed[$name]}" "${non2xx[$name]}"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
paired() {  # median over rounds of (req/s of $1 / req/s of $2), each pair measured back to back
  # shellcheck disable=SC2046
  printf '%.2f' "$(bench_median $(paste <(tr ' ' '\n' <<<"${rps[$1]}" | grep -v '^$') <(tr ' ' '\n' <<<"${rps[$2]}" | grep -v '^$') |
    awk '{print $1 / $2}'))"
}
echo
echo "replica direct / node peer:            best $(ratio "${best[direct]}" "${best[node]}")  median $(ratio "${median[direct]}" "${median[node]}")  per round (median) $(paired direct node)  (goal >= 2)"
echo "builtin front memory / nginx limit_req: best $(ratio "${best[mem-builtin]}" "${best[limit_req]}")  median $(ratio "${median[mem-builtin]}" "${median[limit_req]}")  per round (median) $(paired mem-builtin limit_req)  (goal >= 0.75)"
echo "nginx front memory / nginx limit_req:   best $(ratio "${best[mem-nginx]}" "${best[limit_req]}")  median $(ratio "${median[mem-nginx]}" "${median[limit_req]}")"
echo "CPU per request, nginx limit_req / builtin front memory: $(ratio "${cpumed[limit_req]}" "${cpumed[mem-builtin]}")" \
  " (node peer / replica direct: $(ratio "${cpumed[node]}" "${cpumed[direct]}"))"
echo "builtin front redis-lua p50: $(to_ms "${p50[builtin]}") ms, nginx front redis-lua p50: $(to_ms "${p50[nginx]}") ms  (goal < 5 ms)"
echo
echo "versions: ratelab $(git rev-parse --short HEAD 2>/dev/null || echo '?'), nginx $(nginx_version), node $(node --version)," \
  "rate-limiter-flexible $(node -p "require('./scripts/peers/node_modules/rate-limiter-flexible/package.json').version")," \
  "ioredis $(node -p "require('./scripts/peers/node_modules/ioredis/package.json').version")," \
  "$(redis-server --version | awk '{print $1, $2, $3}'), $(wrk --version 2>&1 | head -1 | awk '{print $1, $2}')"
echo "machine: $(nproc) cores, $(uname -sr)"
