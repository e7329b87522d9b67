#!/usr/bin/env bash
# Regenerates the example HTML reports under docs/reports/: `ratelab-cli run
# --report` (the boundary scenario), `ratelab-cli race --report` on a private
# redis-server (never :6379), `ratelab-cli tune --report` over a generated
# access log, `ratelab-cli keys --audit --report` on a private redis-server
# holding keys written by the real Python `limits` library plus two bad ones,
# `ratelab-cli audit --report` against RateLab's own serve, and the window's
# File > Export report after the
# boundary preset (--report-out, under xvfb-run when it exists). Builds first
# if needed.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${RATELAB_BUILD_DIR:-build}
cli="$build_dir/app/cli/ratelab-cli"
gui="$build_dir/app/gui/ratelab"
if [[ ! -x "$cli" || ! -x "$gui" ]]; then RATELAB_BUILD_DIR="$build_dir" scripts/build.sh; fi
out=docs/reports
mkdir -p "$out"
echo "example-reports: run (boundary scenario)"
"$cli" run --scenario resources/scenarios/boundary.json --report "$out/run-boundary.html" >/dev/null
echo "example-reports: race (private redis-server)"
"$cli" race --redis managed --rounds 100 --report "$out/race.html" >/dev/null
echo "example-reports: tune (a generated access log)"
log=$(mktemp --suffix=.log)
trap 'rm -f "$log"' EXIT
/usr/bin/python3 scripts/gen-access-log.py --clients 50 --seconds 60 --seed 7 20000 "$log"
"$cli" tune --trace "$log" --algorithm token_bucket,sliding_log --limit 50:600:50 --window-ms 1000,10000 \
  --report "$out/tune.html" >/dev/null
echo "example-reports: key audit (private redis-server, keys from Python limits and two bad ones)"
rdir=$(mktemp -d)
rport=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$rport" --bind 127.0.0.1 --dir "$rdir" --save '' --appendonly no --daemonize yes \
  --pidfile "$rdir/redis.pid" >/dev/null
trap 'rm -f "$log"; kill "$(cat "$rdir/redis.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$rdir"' EXIT
until redis-cli -p "$rport" ping >/dev/null 2>&1; do sleep 0.1; done
/usr/bin/python3 tests/peers/python/limits_keys.py "$rport" >/dev/null
for i in $(seq 1 40); do redis-cli -p "$rport" SET "LIMITER/api/user$i/10/1/minute" $((i % 11)) EX 50 >/dev/null; done
redis-cli -p "$rport" SET "LIMITER/api/stuck/10/1/minute" 10 >/dev/null             # no TTL: locked out for good
redis-cli -p "$rport" SET "LIMITER/api/daylong/10/1/minute" 1 EX 86400 >/dev/null   # a day for a 1-minute window
"$cli" keys --audit --redis "redis://127.0.0.1:$rport" --report "$out/key-audit.html" >/dev/null || true  # exit 1: it fails
redis-cli -p "$rport" shutdown nosave >/dev/null 2>&1 || true
echo "example-reports: audit of RateLab's own serve (fixed_window 5 per second, builtin front)"
serve_log=$(mktemp)
"$cli" serve --algorithm fixed_window --limit 5 --window-ms 1000 --front builtin >"$serve_log" 2>&1 &
serve_pid=$!
until grep -q '^front http' "$serve_log"; do sleep 0.1; done
front=$(grep -o '^front http://[0-9.:]*' "$serve_log" | cut -d' ' -f2)
"$cli" audit --http-target "$front/" --budget-s 30 --report "$out/audit-serve.html" >/dev/null || true  # exit 1 when a probe fails
kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true
rm -f "$serve_log"
echo "example-reports: the window after the boundary preset"
if command -v xvfb-run >/dev/null 2>&1; then wrap=(xvfb-run -a); else wrap=(env QT_QPA_PLATFORM=offscreen); fi
"${wrap[@]}" "$gui" --preset boundary --managed-redis --autostart --size 1500x950 \
  --report-out "$out/window-boundary.html" --exit-after-ms 60000
ls -l "$out"
