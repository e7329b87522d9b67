#!/usr/bin/env bash
# The run command: installs what is missing, builds Release, and runs RateLab
# on its embedded default (a Redis on 127.0.0.1:6379 if one answers, else a
# private redis-server it starts and stops). Opens the window when a display
# exists; otherwise runs the headless boundary demo and prints its table.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
RATELAB_BUILD_DIR=${RATELAB_BUILD_DIR:-build} scripts/build.sh
bin="${RATELAB_BUILD_DIR:-build}/app"
if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" && -x "$bin/gui/ratelab" ]]; then
  exec "$bin/gui/ratelab" "$@"
fi
echo "No display: running the headless boundary demo (ratelab-cli run --scenario resources/scenarios/boundary.json)."
exec "$bin/cli/ratelab-cli" run --scenario resources/scenarios/boundary.json "$@"
