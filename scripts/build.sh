#!/usr/bin/env bash
# Configures and builds RateLab into ${RATELAB_BUILD_DIR:-build} (Release unless BUILD_TYPE is set).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${RATELAB_BUILD_DIR:-build}
extra=()
if [[ "${CI:-}" == "true" ]]; then extra+=(-DRATELAB_WERROR=ON); fi
# ccache (installed by install-deps.sh) makes rebuilds and fresh build dirs cheap.
if command -v ccache >/dev/null 2>&1; then
  extra+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" "${extra[@]}" "$@" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
