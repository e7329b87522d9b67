#!/usr/bin/env bash
# Storms a real nginx limit_req beside RateLab's leaky_bucket (same rate and burst):
# starts Debian's nginx from the config template (scripts/lib/nginx.sh) as an
# unprivileged child on a free loopback port, runs
# resources/scenarios/nginx_limit_req.json against it, stops it.
#   scripts/nginx-limit-req-demo.sh [extra ratelab-cli run flags, e.g. --json]
set -euo pipefail
cd "$(dirname "$0")/.."
cli=${RATELAB_CLI:-build/app/cli/ratelab-cli}
. scripts/lib/bench-common.sh
. scripts/lib/nginx.sh
dir=$(mktemp -d)
trap 'nginx_stop; rm -rf "$dir"' EXIT
nginx_start "$dir" "$nginx_demo_http" "$nginx_demo_location"
echo "nginx $(nginx_version) on 127.0.0.1:$nginx_port: limit_req rate=10r/s burst=5 nodelay" >&2
"$cli" run --scenario resources/scenarios/nginx_limit_req.json --http-target "$nginx_url" "$@"
