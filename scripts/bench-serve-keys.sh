#!/usr/bin/env bash
# Memory of `ratelab-cli serve` when every request brings a new x-api-key (issue
# 25, item 9): one memory replica, --front none, sent N requests with N distinct
# keys by `ratelab-cli run --backend http --clients N --requests N`. For each
# algorithm, the replica's resident memory (VmRSS) before and after, and the
# keys its tally says it evicted, once without a useful bound (--max-keys
# 100000000) and once with the default (100000).
# Usage: scripts/bench-serve-keys.sh [requests, default 300000] [algorithms, default sliding_log,fixed_window]
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${1:-300000}
algorithms=${2:-sliding_log,fixed_window}
. scripts/lib/bench-common.sh
bench_cli bench-serve-keys

dir=$(mktemp -d)
serve_pid=""
cleanup() {
  [[ -n "$serve_pid" ]] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT INT TERM

rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }

# $1 algorithm, $2 --max-keys: prints one result line.
measure() {
  local algorithm=$1 max_keys=$2 out="$dir/serve.out" url=""
  "$cli" serve --front none --algorithm "$algorithm" --limit 100 --window-ms 60000 --max-keys "$max_keys" >"$out" 2>&1 &
  serve_pid=$!
  for _ in $(seq 100); do
    url=$(awk '/^replica 0 / {print $3}' "$out")
    [[ -n "$url" ]] && break
    sleep 0.1
  done
  [[ -n "$url" ]] || { echo "bench-serve-keys: serve did not start:" >&2; cat "$out" >&2; exit 1; }
  local before after start end
  before=$(rss_kb "$serve_pid")
  start=$(date +%s.%N)
  "$cli" run --backend http --http-target "$url/" --algorithm "$algorithm" --limit 100 --window-ms 60000 \
    --clients "$requests" --requests "$requests" --concurrency 64 >"$dir/run.out" 2>&1 ||
    { echo "bench-serve-keys: the storm failed:" >&2; cat "$dir/run.out" >&2; exit 1; }
  end=$(date +%s.%N)
  after=$(rss_kb "$serve_pid")
  kill -INT "$serve_pid"
  wait "$serve_pid" || true
  serve_pid=""
  local stopped evicted
  stopped=$(grep '^stopped:' "$out" || true)
  evicted=$(sed -n 's/.*evicted keys: \([0-9]*\).*/\1/p' <<<"$stopped")
  awk -v a="$algorithm" -v m="$max_keys" -v n="$requests" -v s="$start" -v e="$end" -v b="$before" -v f="$after" \
    -v x="${evicted:-0}" 'BEGIN { printf "%-14s --max-keys %-10s %8d requests in %5.1f s   RSS %7.1f -> %7.1f MB (+%6.1f MB)   evicted %s\n",
      a, m, n, e - s, b / 1024, f / 1024, (f - b) / 1024, x }'
  grep -q "200: $requests " <<<"$stopped" ||
    echo "  (tally: ${stopped#stopped: })"
}

echo "ratelab-cli at $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores, load: $(bench_load)"
IFS=, read -ra list <<<"$algorithms"
for a in "${list[@]}"; do
  measure "$a" 100000000
  measure "$a" 100000
done
