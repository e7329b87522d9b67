#!/usr/bin/env bash
# Regenerates docs/screenshots/<preset>.png for every preset of the window:
# each preset runs to completion against a private redis-server (never :6379)
# and the window is saved after the run. Uses xvfb-run when it exists (real X
# rendering), else Qt's offscreen platform. Builds ratelab first if needed.
# Then the key inspector, the script beside token_bucket, the Tune panel, and
# the HTTP audit of a private nginx (scripts/lib/nginx.sh) at two sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${RATELAB_BUILD_DIR:-build}
bin="$build_dir/app/gui/ratelab"
if [[ ! -x "$bin" ]]; then RATELAB_BUILD_DIR="$build_dir" scripts/build.sh; fi
out=docs/screenshots
mkdir -p "$out"
presets=(boundary replica_leak race clock_skew outage burst_tolerance failover)
run() {
  if command -v xvfb-run >/dev/null 2>&1; then
    xvfb-run -a -s "-screen 0 1600x1000x24" "$@"
  else
    QT_QPA_PLATFORM=offscreen "$@"
  fi
}
for p in "${presets[@]}"; do
  echo "screenshots: $p"
  run "$bin" --preset "$p" --managed-redis --autostart --theme "${THEME:-light}" \
    --size 1500x950 --screenshot "$out/$p.png" --exit-after-ms 60000
done
echo "screenshots: key inspector after the race preset"
run "$bin" --preset race --managed-redis --autostart --theme "${THEME:-light}" --show inspector \
  --size 1500x950 --screenshot "$out/inspector.png" --exit-after-ms 60000

echo "screenshots: key inspector on a private Redis Cluster (the URL word 'cluster'): node, slot, keys per master"
scenario=$(mktemp --suffix=.json)
cat > "$scenario" <<'JSON'
{"name": "Keys across a cluster", "backend": "redis-lua", "clock": "virtual", "pattern": "burst",
 "algorithm": ["token_bucket", "sliding_log", "gcra"], "limit": 10, "window_ms": 60000,
 "requests": 300, "clients": 12, "concurrency": 4}
JSON
run "$bin" --scenario "$scenario" --redis cluster --autostart --show inspector --theme "${THEME:-light}" \
  --size 1500x950 --screenshot "$out/inspector_cluster.png" --exit-after-ms 60000
rm -f "$scenario"

echo "screenshots: the seed article's script beside RateLab's token_bucket"
run "$bin" --scenario resources/scenarios/seed_vs_token_bucket.json --managed-redis --autostart \
  --theme "${THEME:-light}" --size 1500x950 --screenshot "$out/script_beside.png" --exit-after-ms 60000

echo "screenshots: Tune panel over a synthetic access log (sweep, then the recommendation replayed)"
log=$(mktemp --suffix=.log)
python3 scripts/gen-access-log.py 100000 "$log" --clients 400 --seconds 600 --seed 3
run "$bin" --trace "$log" --autostart --show tune --theme "${THEME:-light}" \
  --size 1500x950 --screenshot "$out/tune.png" --exit-after-ms 120000
rm -f "$log"
echo "screenshots: the HTTP audit of a real nginx limit_req (rate=10r/s burst=5), its lanes beside the fingerprint's model"
. scripts/lib/bench-common.sh
. scripts/lib/nginx.sh
nginx_dir=$(mktemp -d)
trap 'nginx_stop; rm -rf "$nginx_dir"' EXIT
nginx_start "$nginx_dir" "$nginx_demo_http" "$nginx_demo_location"
for shot in 1600x1000:audit-lanes 1024x700:audit-lanes-1024; do  # each audit uses fresh keys and source addresses
  run "$bin" --audit "$nginx_url" --autostart --theme "${THEME:-light}" --size "${shot%%:*}" \
    --screenshot "$out/${shot#*:}.png" --exit-after-ms 120000
done
nginx_stop
echo "screenshots: wrote $((${#presets[@]} + 6)) images to $out/"
