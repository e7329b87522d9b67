#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs the whole suite.
# Tests that need Redis start their own redis-server on a free port in a temp
# dir; nothing uses :6379. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
RATELAB_BUILD_DIR=${RATELAB_BUILD_DIR:-build} scripts/build.sh
cd "${RATELAB_BUILD_DIR:-build}"
ctest --output-on-failure --timeout 600 -j 2 "$@"
