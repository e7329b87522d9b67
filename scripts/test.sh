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
cd - >/dev/null
# Fuzz smoke (about 1 minute: 3 targets x 20 s) when clang is installed.
if command -v clang++ >/dev/null 2>&1; then
  scripts/fuzz.sh "${RATELAB_FUZZ_SECONDS:-20}"
fi
