#!/usr/bin/env bash
# Prints the MEMORY USAGE table of each algorithm's Redis key(s): one client,
# 100 requests at limit 100 per 60 s, redis-lua, on a private redis-server
# (tests/core/redis/test_redis_stores.cpp, memoryUsagePerAlgorithm).
# Usage: scripts/redis-memory-table.sh [build dir, default build]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cmake --build "$build" -j2 --target test_redis_stores >/dev/null
"$build/tests/core/redis/test_redis_stores" memoryUsagePerAlgorithm 2>&1 | sed -n 's/^\(|.*|\)$/\1/p'
